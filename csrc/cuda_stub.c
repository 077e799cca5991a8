/* cuda_stub.c - kernels/cuda/cuda_api.h in a build without nvcc: no device,
 * clear errors. */
#include "cuda_api.h"

#ifndef TP_HAVE_CUDA

#include <stdio.h>

static const char NOT_BUILT[] = "backend cuda: this build of torpor has no CUDA backend";

int tp_cuda_built(void) { return 0; }

int tp_cuda_probe(char *why, size_t size)
{
    if (why && size) snprintf(why, size, "this build has no CUDA backend");
    return 0;
}

tp_status tp_cuda_create(const tp_cuda_setup *setup, tp_cuda_batch **out, char *err, size_t err_size)
{
    (void)setup;
    *out = NULL;
    snprintf(err, err_size, "%s", NOT_BUILT);
    return TP_ERR_BACKEND;
}

void tp_cuda_destroy(tp_cuda_batch *c) { (void)c; }
const char *tp_cuda_error(const tp_cuda_batch *c) { (void)c; return NOT_BUILT; }

int tp_cuda_arrays(const tp_cuda_batch *c, const tp_cuda_array **arrays)
{
    (void)c;
    *arrays = NULL;
    return 0;
}

size_t tp_cuda_counts_span(const tp_cuda_batch *c, void **host, void **device)
{
    (void)c;
    *host = *device = NULL;
    return 0;
}

size_t tp_cuda_device_bytes(const tp_cuda_batch *c) { (void)c; return 0; }

tp_status tp_cuda_copy(void *c, void *dst, const void *src, size_t bytes, int to_device)
{
    (void)c, (void)dst, (void)src, (void)bytes, (void)to_device;
    return TP_ERR_BACKEND;
}

tp_status tp_cuda_wait(void *c) { (void)c; return TP_ERR_BACKEND; }
tp_status tp_cuda_step(tp_cuda_batch *c, int current) { (void)c, (void)current; return TP_ERR_BACKEND; }
tp_status tp_cuda_use_device(tp_cuda_batch *c) { (void)c; return TP_ERR_BACKEND; }

tp_status tp_cuda_reset(tp_cuda_batch *c, const int32_t *worlds, const uint32_t *episode, int count)
{
    (void)c, (void)worlds, (void)episode, (void)count;
    return TP_ERR_BACKEND;
}

tp_status tp_cuda_sensors_on(tp_cuda_batch *c, const tp_sensor_arrays *host, int current, tp_sensor_arrays *device)
{
    (void)c, (void)host, (void)current, (void)device;
    return TP_ERR_BACKEND;
}

tp_status tp_cuda_sensors_before_step(tp_cuda_batch *c) { (void)c; return TP_ERR_BACKEND; }
tp_status tp_cuda_sensors_after_step(tp_cuda_batch *c, int current) { (void)c, (void)current; return TP_ERR_BACKEND; }

#else
/* The CUDA library is kernels/cuda/; ISO C wants a declaration here. */
typedef int tp_cuda_stub_unused;
#endif
