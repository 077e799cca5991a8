/* cuda_stub.c - the CUDA entry points of a build without nvcc: no device, clear errors. */
#include "cuda_backend.h"
#include "error.h"

#ifndef TP_HAVE_CUDA

int tp_cuda_built(void) { return 0; }
int tp_cuda_device_count(void) { return 0; }
const char *tp_cuda_probe_message(void) { return "this build has no CUDA backend"; }

static tp_status not_built(void)
{
    return tp_fail(TP_ERR_BACKEND, "backend cuda: this build of torpor has no CUDA backend");
}

tp_status tp_cuda_batch_create(tp_batch *b) { (void)b; return not_built(); }
void tp_cuda_batch_destroy(tp_batch *b) { (void)b; }
tp_status tp_cuda_step(tp_batch *b) { (void)b; return not_built(); }
size_t tp_cuda_device_bytes(const tp_batch *b) { (void)b; return 0; }
tp_status tp_cuda_pull(tp_batch *b, int first, int last, int groups)
{
    (void)b, (void)first, (void)last, (void)groups;
    return not_built();
}
tp_status tp_cuda_begin_host_write(tp_batch *b, int first, int last)
{
    (void)b, (void)first, (void)last;
    return not_built();
}
tp_status tp_cuda_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    (void)b, (void)worlds, (void)count;
    return not_built();
}

#else
/* The CUDA backend is kernels/cuda_backend.cu; ISO C wants a declaration here. */
typedef int tp_cuda_stub_unused;
#endif
