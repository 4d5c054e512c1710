// nccl_test.h - helpers of the NCCL programs of tests/nccl: one-rank
// communicators, two-rank communicators across processes (the unique id
// passed through a file), NCCL error checks.  The programs build against
// the NCCL test double (tests/nccl/nccl.h, CI) or the real nccl.h (GPU).
#pragma once
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "races.h"
#include <nccl.h>

#define NCHECK(x)                                                              \
    do {                                                                       \
        ncclResult_t r_ = (x);                                                 \
        if (r_ != ncclSuccess) {                                               \
            std::fprintf(stderr, "%s:%d: %s: NCCL error %d\n", __FILE__,       \
                         __LINE__, #x, (int)r_);                               \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

// a communicator of this process alone
static ncclComm_t solo_comm()
{
    ncclUniqueId id;
    ncclComm_t c;
    NCHECK(ncclGetUniqueId(&id));
    NCHECK(ncclCommInitRank(&c, 1, id, 0));
    return c;
}

// rank RANK of NRANKS: rank 0 makes the unique id and writes it to PATH,
// the others read it from there
static ncclComm_t shared_comm(const char *path, int rank, int nranks)
{
    ncclUniqueId id;
    if (rank == 0) {
        NCHECK(ncclGetUniqueId(&id));
        char tmp[4096];
        std::snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = std::fopen(tmp, "wb");
        if (!f || std::fwrite(&id, sizeof id, 1, f) != 1 || std::fclose(f) ||
            std::rename(tmp, path)) {
            std::perror(path);
            std::exit(1);
        }
    } else {
        FILE *f = NULL;
        for (int i = 0; i < 600 && !(f = std::fopen(path, "rb")); i++)
            usleep(50000);
        if (!f || std::fread(&id, sizeof id, 1, f) != 1) {
            std::fprintf(stderr, "no unique id in %s\n", path);
            std::exit(1);
        }
        std::fclose(f);
    }
    ncclComm_t c;
    NCHECK(ncclCommInitRank(&c, nranks, id, rank));
    return c;
}

static int env_rank()
{
    const char *r = std::getenv("RANK");
    return r ? std::atoi(r) : 0;
}
