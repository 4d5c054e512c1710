/* out_github.c - the findings as GitHub Actions workflow commands
 * (--format=github), which a workflow step prints to annotate the files of
 * a pull request: one line per finding,
 *   ::error file=F,line=L,title=KIND::MESSAGE
 * (warning and notice for the other severities), then a ::notice line per
 * related location.  Values are escaped as GitHub's toolkit does
 * (actions/toolkit, packages/core/src/command.ts): in the message %, CR and
 * LF become %25, %0D and %0A; in properties also ':' and ',' become %3A and
 * %2C.  Text from the recording is first escaped as in the text report
 * (control characters and bytes that are not UTF-8 as \xNN).  The summary
 * is not part of it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "util.h"

/* S with GitHub's escapes; PROPERTY: also ':' and ',' */
static void put_gh(FILE *f, const char *s, int property)
{
  for (; *s; s++) {
    switch (*s) {
    case '%': fputs("%25", f); break;
    case '\r': fputs("%0D", f); break;
    case '\n': fputs("%0A", f); break;
    case ':':
      if (property) {
        fputs("%3A", f);
        break;
      }
      fputc(*s, f);
      break;
    case ',':
      if (property) {
        fputs("%2C", f);
        break;
      }
      fputc(*s, f);
      break;
    default: fputc(*s, f);
    }
  }
}

/* recording text, terminal-safe (\xNN), then GitHub-escaped */
static void put_text(FILE *f, const char *s, int property)
{
  char *e = escaped(s ? s : "?");
  put_gh(f, e, property);
  free(e);
}

static const char *command(enum severity s)
{
  return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "notice";
}

/* "::CMD file=F,line=L,title=" (file and line when known) */
static void begin(FILE *f, const char *cmd, const struct location *loc)
{
  fprintf(f, "::%s ", cmd);
  if (loc->file) {
    fputs("file=", f);
    put_text(f, loc->file, 1);
    if (loc->line > 0)
      fprintf(f, ",line=%d", loc->line);
    fputc(',', f);
  }
  fputs("title=", f);
}

/* a place without a file, named in the message: "train+0x1100: " */
static void where(FILE *f, const struct location *loc)
{
  char buf[4096];
  if (loc->file)
    return;
  put_text(f, location_text(buf, sizeof buf, loc), 0);
  fputs(": ", f);
}

static int placed(const struct location *loc)
{
  return loc->file || loc->module;
}

void output_github(FILE *f, const struct findings *fs)
{
  char buf[4096];
  for (size_t i = 0; i < fs->n; i++) {
    const struct finding *x = &fs->v[i];
    begin(f, command(x->severity), &x->loc);
    put_text(f, x->kind, 1);
    fputs("::", f);
    where(f, &x->loc);
    put_text(f, x->message, 0);
    if (x->count > 1)
      fprintf(f, " (%" PRIu64 " times)", x->count);
    if (x->loc.function) {
      fputs(" in ", f);
      put_text(f, x->loc.function, 0);
    }
    if (x->origin_label) {
      fputs(" (in ", f);
      put_text(f, x->origin_label, 0);
      fputc(')', f);
    }
    /* notes without a place go with the finding */
    for (size_t r = 0; r < x->nrelated; r++)
      if (!placed(&x->related[r].loc)) {
        fputs("%0Anote: ", f);
        put_text(f, x->related[r].message, 0);
      }
    if (x->fix) {
      fputs("%0Afix: ", f);
      put_text(f, x->fix, 0);
    }
    fputc('\n', f);
    for (size_t r = 0; r < x->nrelated; r++) {
      const struct related *rl = &x->related[r];
      if (!placed(&rl->loc))
        continue;
      begin(f, "notice", &rl->loc);
      put_text(f, x->kind, 1);
      fputs(" (related)::", f);
      where(f, &rl->loc);
      put_text(f, rl->message, 0);
      fputs(" (related to the ", f);
      put_text(f, x->kind, 0);
      fputs(" finding at ", f);
      put_text(f, location_text(buf, sizeof buf, &x->loc), 0);
      fputs(")\n", f);
    }
  }
}
