/* sim_fatbin.c - TEST DOUBLE for CI: reads kernel parameter layouts out of
 * the device code that nvcc embeds, so that the simulated cuFuncGetParamInfo
 * answers truthfully.
 *
 * Accepts the __fatBinC_Wrapper_t that nvcc passes to
 * __cudaRegisterFatBinary, a bare fatbin (magic 0xBA55ED50, e.g. from
 * `nvcc -fatbin`) or a cubin ELF (`nvcc -cubin`).  In every ELF (cubin) entry
 * of the fatbin, the section ".nv.info.<mangled kernel name>" holds
 * EIATTR_KPARAM_INFO attributes (ordinal, offset, size of each parameter;
 * a kernel with a parameter past 4 KiB has EIATTR_KPARAM_INFO_V2 instead:
 * u32 index, u16 ordinal, u16 offset, u16 size, u16 attributes) and
 * EIATTR_CBANK_PARAM_SIZE.  Compressed entries cannot be read: build
 * the apps with `nvcc --no-compress` (tests/apps does).  PTX-only entries
 * give kernels of unknown layout (cuFuncGetParamInfo: not supported).
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

#define FATBINC_MAGIC 0x466243B1u
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_COMPRESSED 0x2000u       /* LZ4 */
#define FATBIN_FLAG_COMPRESSED_ZSTD 0x8000u

#define EIFMT_NVAL 1
#define EIFMT_BVAL 2
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_KPARAM_INFO_V2 0x45
#define EIATTR_CBANK_PARAM_SIZE 0x19

struct fatbin_wrapper { int magic; int version; const void *data; void *filename_or_fatbins; };
struct fatbin_header { uint32_t magic; uint16_t version, header_size; uint64_t fat_size; };
struct fatbin_entry {
    uint16_t kind, version;
    uint32_t header_size;
    uint64_t size;
    uint32_t compressed_size, unknown;
    uint16_t minor, major;
    uint32_t arch;
    uint32_t name_offset, name_len;
    uint64_t flags;
    uint64_t zero;
    uint64_t uncompressed_size;
};

/* Functions of unloaded modules, whose handles the next loads reuse (last
 * freed, first reused), as the real driver reuses addresses: a tool that
 * caches anything by CUfunction must forget it when a module is unloaded.
 * Their names stay allocated for tools that look one up late. */
static struct clsim_func *g_free_funcs;

void clsimdrv_module_release(struct clsim_module *m)
{
    /* m->funcs is newest first: the newest is freed first, so the next
     * load's first function gets the handle of this one's last */
    struct clsim_func *tail = m->funcs;
    if (!tail)
        return;
    for (struct clsim_func *f = tail; f; f = f->next) {
        f->magic = 0;
        tail = f;
    }
    tail->next = g_free_funcs;
    g_free_funcs = m->funcs;
    m->funcs = NULL;
}

static struct clsim_func *func_new(struct clsim_module *m, const char *name)
{
    struct clsim_func *f = g_free_funcs;
    if (f) {
        g_free_funcs = f->next;
        memset(f, 0, sizeof *f);
    } else {
        f = calloc(1, sizeof *f);
    }
    f->magic = CLSIM_MAGIC_FUNC;
    f->name = strdup(name);
    f->nparams = -1;
    f->module = m;
    f->kernel.magic = CLSIM_MAGIC_KERNEL;
    f->kernel.func = f;
    f->next = m->funcs;
    m->funcs = f;
    return f;
}

struct clsim_func *clsimdrv_module_func(struct clsim_module *m, const char *name, int create)
{
    for (struct clsim_func *f = m->funcs; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    return create ? func_new(m, name) : NULL;
}

/* one .nv.info.<name> section */
static void parse_info(struct clsim_module *m, const char *name, const uint8_t *p, size_t n)
{
    struct clsim_func *f = clsimdrv_module_func(m, name, 0);
    size_t i = 0;
    if (f && f->nparams >= 0)
        return;  /* already known from another cubin of the fatbin */
    if (!f)
        f = func_new(m, name);
    f->nparams = 0;
    while (i + 2 <= n) {
        uint8_t fmt = p[i], attr = p[i + 1];
        size_t len = 0;
        i += 2;
        switch (fmt) {
        case EIFMT_NVAL: len = 0; break;
        case EIFMT_BVAL: len = 1; break;
        case EIFMT_HVAL: len = 2; break;
        case EIFMT_SVAL:
            if (i + 2 > n)
                return;
            len = (size_t)p[i] | (size_t)p[i + 1] << 8;
            i += 2;
            break;
        default:
            return;  /* unknown format: stop rather than misread */
        }
        if (i + len > n)
            return;
        if ((attr == EIATTR_KPARAM_INFO || attr == EIATTR_KPARAM_INFO_V2) &&
            fmt == EIFMT_SVAL && len >= 12) {
            uint16_t ordinal, offset, size;
            uint32_t info;
            memcpy(&ordinal, p + i + 4, 2);
            memcpy(&offset, p + i + 6, 2);
            memcpy(&info, p + i + 8, 4);
            memcpy(&size, p + i + 8, 2);
            if ((int)ordinal >= f->nparams) {
                f->params = realloc(f->params, (ordinal + 1u) * sizeof *f->params);
                for (int k = f->nparams; k <= ordinal; k++)
                    f->params[k] = (struct clsim_param){ 0, 0 };
                f->nparams = ordinal + 1;
            }
            f->params[ordinal].offset = offset;
            f->params[ordinal].size =
                attr == EIATTR_KPARAM_INFO ? (info >> 18) & 0x3fff : size;
        } else if (attr == EIATTR_CBANK_PARAM_SIZE && fmt == EIFMT_HVAL) {
            f->param_bytes = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
        }
        i += len;
    }
}

static void parse_elf(struct clsim_module *m, const void *image, size_t size)
{
    Elf *e;
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    char *copy = malloc(size);
    memcpy(copy, image, size);
    elf_version(EV_CURRENT);
    e = elf_memory(copy, size);
    if (!e || elf_getshdrstrndx(e, &shstrndx) != 0) {
        if (e)
            elf_end(e);
        free(copy);
        return;
    }
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            continue;
        if (strncmp(name, ".nv.info.", 9) == 0 && (d = elf_getdata(scn, NULL)) && d->d_buf)
            parse_info(m, name + 9, d->d_buf, d->d_size);
    }
    /* kernels without parameters may lack .nv.info.<name> */
    scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            continue;
        if (strncmp(name, ".text.", 6) == 0 && !clsimdrv_module_func(m, name + 6, 0))
            func_new(m, name + 6)->nparams = 0;
    }
    elf_end(e);
    free(copy);
}

static size_t elf_size(const void *image)
{
    const Elf64_Ehdr *h = image;
    size_t end = h->e_shoff + (size_t)h->e_shnum * h->e_shentsize;
    size_t ph = h->e_phoff + (size_t)h->e_phnum * h->e_phentsize;
    return end > ph ? end : ph;
}

static void parse_fatbin(struct clsim_module *m, const uint8_t *p)
{
    const struct fatbin_header *h = (const void *)p;
    const uint8_t *end = p + h->header_size + h->fat_size;
    static int warned;
    /* two passes: sm_90 cubins first, then any other */
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *q = p + h->header_size;
        while (q + sizeof(struct fatbin_entry) <= end) {
            const struct fatbin_entry *en = (const void *)q;
            if (en->header_size == 0)
                break;
            if (en->kind == FATBIN_KIND_ELF && (pass == 0) == (en->arch == 90)) {
                if ((en->flags & (FATBIN_FLAG_COMPRESSED | FATBIN_FLAG_COMPRESSED_ZSTD)) ||
                    en->uncompressed_size) {
                    if (!warned++)
                        fprintf(stderr, "cudalens sim: compressed device code in a fatbin: "
                                        "kernel parameter layouts unknown (build with "
                                        "nvcc --no-compress)\n");
                } else {
                    parse_elf(m, q + en->header_size, en->size);
                }
            }
            q += en->header_size + en->size;
        }
    }
}

struct clsim_module *clsim_fatbin_parse(const void *image)
{
    struct clsim_module *m = calloc(1, sizeof *m);
    const uint32_t *w = image;
    m->magic = CLSIM_MAGIC_MODULE;
    if (!image)
        return m;
    if (w[0] == FATBINC_MAGIC) {
        image = ((const struct fatbin_wrapper *)image)->data;
        w = image;
    }
    if (w[0] == FATBIN_MAGIC)
        parse_fatbin(m, image);
    else if (memcmp(image, ELFMAG, SELFMAG) == 0)
        parse_elf(m, image, elf_size(image));
    return m;  /* PTX or unknown: kernels get unknown layouts */
}
