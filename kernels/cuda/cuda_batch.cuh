/* cuda_batch.cuh - the CUDA library's own types, shared by its files:
 *   memory.cu  device arrays, uploads, copies for the mirror, the probe;
 *   stages.cu  the kernels: kernels/step.h's stages as the list's launches,
 *              the global contact sort's pieces, resets;
 *   graph.cu   the step captured once as a CUDA graph from the stage list,
 *              with the conditional node that skips an all-asleep step;
 *   sensors.cu the sensors, around the last step of a step call.
 * Only cub_sort.cu includes CUB (DESIGN.md section 5). */
#ifndef TP_CUDA_BATCH_CUH
#define TP_CUDA_BATCH_CUH

#include "cuda_api.h"
#include "collide_pairs.h"
#include "solve_group.h"

#include <cuda_runtime.h>

#define TP_WORLD_THREADS 64          /* threads per block of the thread-per-world kernels */
#define TP_BLOCK_THREADS 64          /* threads per block of the reset kernel (a thread per body; untuned) */
#define TP_DEVICE_ARRAYS 96          /* room for the arrays memory.cu lists */

/* Device pointers and sizes, passed by value to every kernel. */
struct tp_dev {
    tp_layout L;                     /* the batch's arrays, on the device */
    const tp_body_init *body_init;   /* [bodies] the model's template, for resets */
    float gravity0[3];               /* the model's gravity, for resets */
    tp_artic_initial artic_initial;  /* the initial joint arrays, for resets (L.artic NULL: unused) */
    const tp_cons_model *cons_model; /* [L.cons_count] the model's constraint table, for resets (NULL: none) */
    const tp_mover_state *mover_initial; /* [L.mover_count] each mover's initial state, for resets (NULL: none) */
    char *scratch;                   /* [W] one world's step scratch each (kernels/step.h) */
    size_t scratch_bytes;
    uint8_t *busy_flag;              /* [W] 1 if the world's plan is busy (the plan stage writes it) */
    int32_t *busy_list;              /* [W] the busy worlds, increasing (tp_busy_list_kernel) */
    int32_t *busy_count;             /* [1] how many; the busy-only stages launch over the list */
    uint64_t *keys_in, *keys_out;    /* [W][capacity] contact keys, per-world sentinels */
    int32_t *slots_in, *slots_out;   /* [W][capacity] slot within the world */
    tp_pair_slot *pairs;             /* [W][pair_slots] candidate pairs and their manifolds */
    int32_t *pair_count;             /* [W] candidate pairs of the world this step */
    int32_t *pair_first;             /* [W + 1] per listed world, its first packed pair; [busy_count]: the total */
    int pair_slots;                  /* tp_pair_capacity(capacity) */
    char *list_work;                 /* [W][list_plan.world_bytes] the listing's work areas when they do not fit
                                        shared memory (list_plan.shared == 0), else NULL */
};

/* One allocation: where its device pointer lives, its host twin (NULL for a
 * device-only array), its size; world-major arrays also appear in `mirrored`. */
struct tp_device_array {
    void **device;
    const void *host;
    size_t bytes;
    int upload;                      /* uploaded once at creation (the model's tables) */
    int mirror;                      /* its entry in tp_cuda_batch.mirrored, -1 if none */
    int pinned;                      /* host twin page-locked by cudaHostRegister (memory.cu) */
    int carved;                      /* part of the counts span: no allocation of its own */
    size_t offset;                   /* where in the span (carved only) */
};

struct tp_cuda_batch {
    tp_dev d;
    int device;                      /* its CUDA device ordinal (tp_cuda_setup.device) */
    tp_step_params step;
    tp_randomize_params randomize;
    void *sort_temp;
    size_t sort_temp_bytes;
    int sort_items;                  /* W x capacity */
    void *span_device;               /* the counts group's arrays in one allocation (memory.cu, carve_counts) */
    const void *span_host;           /* their host twins' block (csrc/batch.c's counts_block), NULL if none */
    size_t span_bytes;
    int span_pinned;
    tp_artic_model artic_model;      /* the device copy of L.artic as uploaded: the batch's, with device tables */
    tp_artic_joint *artic_joints;    /* [joint_count] device tables of the articulation model */
    tp_artic_tree *artic_trees;      /* [tree_count] */
    tp_artic_actuator *artic_actuators; /* [actuator_count] (NULL without actuators) */
    tp_poly *host_polys;             /* the polytopes' host copy, uploaded at creation */
    tp_sensor_arrays sensors;        /* the sensors on so far (sensors.cu), device arrays; NULL: off */
    size_t sensor_bytes;             /* their bytes */
    tp_solve_plan solve_plan;        /* the group stages' lanes and shared memory (kernels/solve_group.h) */
    tp_list_plan list_plan;          /* the collide stage's listing: lanes and shared memory (collide_pairs.h) */
    size_t pinned_bytes;             /* host mirror bytes page-locked (memory.cu, pin_host_arrays) */
    cudaStream_t stream, body_stream;
    cudaGraph_t graph[2];            /* one per double-buffer parity */
    cudaGraphExec_t exec[2];
    int graphs_ready;
    tp_device_array arrays[TP_DEVICE_ARRAYS];
    int array_count;
    tp_cuda_array mirrored[TP_DEVICE_ARRAYS];
    int mirrored_count;
    char error[512];
};

/* Record a failure of `what` in c->error; returns TP_ERR_CUDA. */
tp_status tp_cuda_fail(tp_cuda_batch *c, cudaError_t err, const char *what);
#define TP_CUDA_TRY(c, call, what)                                                                                     \
    do {                                                                                                               \
        cudaError_t tp_err_ = (call);                                                                                  \
        if (tp_err_ != cudaSuccess) return tp_cuda_fail((c), tp_err_, (what));                                         \
    } while (0)

/* stages.cu: launch `stage` of the list for every world on stream s, as its
 * launch column says (kernels/step.h). */
cudaError_t tp_launch_stage(tp_cuda_batch *c, int stage, int current, cudaStream_t s);
/* stages.cu: let every group stage's kernel and the pair listing use `bytes`
 * of dynamic shared memory (cudaFuncSetAttribute; needed above 48 KiB). */
cudaError_t tp_group_stages_allow_shared(size_t bytes);
/* stages.cu: one block compacts the busy flags into d.busy_list and
 * d.busy_count and sets the IF node's condition (some world is busy). */
cudaError_t tp_launch_busy_list(const tp_dev &d, cudaGraphConditionalHandle handle, cudaStream_t s);
/* cub_sort.cu: the sort stage per busy world in one block (capacity <=
 * TP_SORT_BLOCK_MAX; d.slots_out holds each world's permutation). */
cudaError_t tp_launch_block_sort(const tp_dev &d, int current, cudaStream_t s);
/* stages.cu: every world's key segment filled with its sentinel and its slots numbered. */
cudaError_t tp_launch_sort_init(const tp_dev &d, int items, cudaStream_t s);
/* stages.cu: reset worlds[0 .. count) (count <= TP_RESET_CHUNK), world w in
 * episode episode[w] (episode has one entry per world of the batch). */
#define TP_RESET_CHUNK 2048
cudaError_t tp_launch_reset(const tp_cuda_batch *c, const int32_t *worlds, const uint32_t *episode, int count,
                            cudaStream_t s);
/* sensors.cu: free the sensors' device arrays. */
void tp_cuda_sensors_free(tp_cuda_batch *c);

#endif
