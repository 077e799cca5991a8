/* sensors.cu - the sensors on the device (kernels/sensors.h, the functions
 * the CPU backend runs): a thread per world, launched on the batch's stream
 * outside the step's graph, around the last step of a step call, and only
 * for the sensors the host has turned on (tp_cuda_sensors_on). */
#include "cuda_batch.cuh"

/* World w's velocities before the step. */
__global__ void tp_imu_save_kernel(tp_layout L, tp_sensor_arrays s)
{
    int w = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (w < L.worlds) tp_imu_save_world(&L, &s, w);
}

/* World w's sensors after the step that wrote contact buffer `current`. */
__global__ void tp_sensors_after_kernel(tp_layout L, tp_sensor_arrays s, int current)
{
    int w = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (w >= L.worlds) return;
    if (s.imu) tp_imu_world(&L, &s, w, L.dt);
    if (s.force) tp_contact_sensors_fill_world(&L, &s, w, current);
}

static unsigned int blocks_of(int worlds) { return (unsigned int)((worlds + TP_WORLD_THREADS - 1) / TP_WORLD_THREADS); }

/* One zeroed device allocation of `bytes` (at least 1) into *p, counted. */
template <typename T> static tp_status alloc_zero(tp_cuda_batch *c, T **p, size_t bytes)
{
    bytes = bytes ? bytes : 1;
    TP_CUDA_TRY(c, cudaMalloc((void **)p, bytes), "cudaMalloc (sensors)");
    c->sensor_bytes += bytes;
    TP_CUDA_TRY(c, cudaMemsetAsync(*p, 0, bytes, c->stream), "cudaMemsetAsync (sensors)");
    return TP_OK;
}

extern "C" tp_status tp_cuda_sensors_on(tp_cuda_batch *c, const tp_sensor_arrays *host, int current,
                                        tp_sensor_arrays *device)
{
    tp_sensor_arrays *s = &c->sensors;
    const tp_layout &L = c->d.L;
    size_t n = 3 * (size_t)L.worlds * (size_t)L.bodies;
    tp_status st = TP_OK;
    if (host->imu && !s->imu && (st = alloc_zero(c, &s->imu, 4 * n * sizeof(float))) != TP_OK) return st;
    if (host->force && !s->force) {
        size_t S = (size_t)host->count, W = (size_t)L.worlds;
        if ((st = alloc_zero(c, &s->index, (size_t)L.bodies * TP_MAX_BODY_SHAPES * sizeof(int16_t))) != TP_OK ||
            (st = alloc_zero(c, &s->touching, W * S)) != TP_OK || (st = alloc_zero(c, &s->force, 3 * W * S * sizeof(float))) != TP_OK)
            return st;
        s->count = host->count;
        TP_CUDA_TRY(c, cudaMemcpyAsync(s->index, host->index, (size_t)L.bodies * TP_MAX_BODY_SHAPES * sizeof(int16_t),
                                       cudaMemcpyHostToDevice, c->stream),
                    "upload of the contact sensors' index");
        tp_sensor_arrays fill = *s;
        fill.imu = NULL; /* the IMU reads 0 until the next step */
        tp_sensors_after_kernel<<<blocks_of(L.worlds), TP_WORLD_THREADS, 0, c->stream>>>(L, fill, current);
        TP_CUDA_TRY(c, cudaGetLastError(), "launch of tp_sensors_after_kernel");
        TP_CUDA_TRY(c, cudaMemcpyAsync(host->force, s->force, 3 * W * S * sizeof(float), cudaMemcpyDeviceToHost, c->stream),
                    "download of the contact sensors");
        TP_CUDA_TRY(c, cudaMemcpyAsync(host->touching, s->touching, W * S, cudaMemcpyDeviceToHost, c->stream),
                    "download of the contact sensors");
    }
    TP_CUDA_TRY(c, cudaStreamSynchronize(c->stream), "turning the sensors on");
    *device = *s;
    return TP_OK;
}

extern "C" tp_status tp_cuda_sensors_before_step(tp_cuda_batch *c)
{
    if (!c->sensors.imu) return TP_OK;
    tp_imu_save_kernel<<<blocks_of(c->d.L.worlds), TP_WORLD_THREADS, 0, c->stream>>>(c->d.L, c->sensors);
    TP_CUDA_TRY(c, cudaGetLastError(), "launch of tp_imu_save_kernel");
    return TP_OK;
}

extern "C" tp_status tp_cuda_sensors_after_step(tp_cuda_batch *c, int current)
{
    if (!c->sensors.imu && !c->sensors.force) return TP_OK;
    tp_sensors_after_kernel<<<blocks_of(c->d.L.worlds), TP_WORLD_THREADS, 0, c->stream>>>(c->d.L, c->sensors, current);
    TP_CUDA_TRY(c, cudaGetLastError(), "launch of tp_sensors_after_kernel");
    return TP_OK;
}

void tp_cuda_sensors_free(tp_cuda_batch *c)
{
    tp_sensor_arrays *s = &c->sensors;
    if (s->imu) cudaFree(s->imu);
    if (s->index) cudaFree(s->index);
    if (s->force) cudaFree(s->force);
    if (s->touching) cudaFree(s->touching);
    *s = tp_sensor_arrays{};
}
