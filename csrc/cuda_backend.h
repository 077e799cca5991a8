/* cuda_backend.h - the host's view of the CUDA backend (plain C, no CUDA types).
 *
 * Implemented in kernels/cuda_backend.cu when the build has nvcc, and by
 * csrc/cuda_stub.c otherwise. The batch's host arrays are a mirror of the
 * device state: the device is authoritative while stepping, the mirror is
 * refreshed on request (tp_batch_state, hashes) and sent back after host writes. */
#ifndef TP_CUDA_BACKEND_H
#define TP_CUDA_BACKEND_H

#include "batch.h"
#include "mirror.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why no device is usable ("no CUDA-capable device is detected", ...). */
const char *tp_cuda_probe_message(void);
/* Allocate the device state of `b`, upload the model's tables and reset every
 * world on the device (cuRAND draws, the same bits as the host's). */
tp_status tp_cuda_batch_create(tp_batch *b);
void tp_cuda_batch_destroy(tp_batch *b);
/* Bytes the batch allocated on the device, all worlds together. */
size_t tp_cuda_device_bytes(const tp_batch *b);
/* One step of every world on the device. */
tp_status tp_cuda_step(tp_batch *b);
/* Make the host mirror of worlds [first, last] current for `groups`
 * (TP_MIRROR_BODIES, _COUNTS, _CONTACTS or unions of them; csrc/mirror.h). */
tp_status tp_cuda_pull(tp_batch *b, int first, int last, int groups);
/* Make the host state of worlds [first, last] current and send it back before
 * the next step. */
tp_status tp_cuda_begin_host_write(tp_batch *b, int first, int last);
/* Reset the listed worlds on the device, drawing with cuRAND
 * (kernels/curand_draws.h); the indices are checked by the caller. */
tp_status tp_cuda_reset_worlds(tp_batch *b, const int *worlds, int count);

#ifdef __cplusplus
}
#endif

#endif
