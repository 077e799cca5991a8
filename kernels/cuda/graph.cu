/* graph.cu - the step as one CUDA graph, captured from kernels/step.h's list.
 *
 * The stages that run only on busy worlds (TP_RUN_BUSY, contiguous in the
 * list) form the body of a conditional IF node; the plan stage before them
 * writes each world's busy flag and one block compacts the flags into the
 * list of busy worlds (which the busy-only stages launch over) and sets the
 * condition, so a
 * step in which every world sleeps runs plan, finish and sleep only (DESIGN.md
 * section 4). One graph per contact-buffer parity, captured at the
 * first step; nothing in a step allocates, synchronises or copies to the host. */
#include "cuda_batch.cuh"

/* Open the IF node after what the main stream has captured so far; its body
 * is captured on c->body_stream until close_body. */
static tp_status open_body(tp_cuda_batch *c, cudaGraph_t g, int *body_capturing)
{
    cudaGraphConditionalHandle handle;
    TP_CUDA_TRY(c, cudaGraphConditionalHandleCreate(&handle, g, 0u, cudaGraphCondAssignDefault),
                "cudaGraphConditionalHandleCreate");
    TP_CUDA_TRY(c, tp_launch_busy_list(c->d, handle, c->stream), "launch of tp_busy_list_kernel");
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    TP_CUDA_TRY(c, cudaStreamGetCaptureInfo(c->stream, &status, NULL, NULL, &deps, NULL, &ndeps),
                "cudaStreamGetCaptureInfo");
    cudaGraphNodeParams np = {}; /* every reserved byte zero, as cudaGraphAddNode asks */
    np.type = cudaGraphNodeTypeConditional;
    np.conditional.handle = handle;
    np.conditional.type = cudaGraphCondTypeIf;
    np.conditional.size = 1;
    cudaGraphNode_t if_node;
    TP_CUDA_TRY(c, cudaGraphAddNode(&if_node, g, deps, NULL, ndeps, &np), "cudaGraphAddNode (IF node)");
    TP_CUDA_TRY(c, cudaStreamUpdateCaptureDependencies(c->stream, &if_node, NULL, 1, cudaStreamSetCaptureDependencies),
                "cudaStreamUpdateCaptureDependencies");
    TP_CUDA_TRY(c, cudaStreamBeginCaptureToGraph(c->body_stream, np.conditional.phGraph_out[0], NULL, NULL, 0,
                                                 cudaStreamCaptureModeRelaxed),
                "cudaStreamBeginCaptureToGraph (IF body)");
    *body_capturing = 1;
    return TP_OK;
}

static tp_status close_body(tp_cuda_batch *c, int *body_capturing)
{
    cudaGraph_t body_out = NULL;
    *body_capturing = 0;
    TP_CUDA_TRY(c, cudaStreamEndCapture(c->body_stream, &body_out), "cudaStreamEndCapture (IF body)");
    return TP_OK;
}

/* Every stage of the list, in order, each world-wide launch on the main
 * stream or, for the busy-only run, inside the IF node's body. */
static tp_status capture_stages(tp_cuda_batch *c, cudaGraph_t g, int current, int *body_capturing)
{
    int opened = 0;
    for (int stage = 0; stage < TP_STEP_STAGE_COUNT; ++stage) {
        int busy_only = !tp_stage_runs(stage, TP_WORK_IDLE);
        if (busy_only && !*body_capturing) {
            if (opened) return tp_cuda_fail(c, cudaErrorInvalidValue, "the stage list (busy-only stages must be contiguous)");
            tp_status st = open_body(c, g, body_capturing);
            if (st != TP_OK) return st;
            opened = 1;
        } else if (!busy_only && *body_capturing) {
            tp_status st = close_body(c, body_capturing);
            if (st != TP_OK) return st;
        }
        cudaStream_t s = *body_capturing ? c->body_stream : c->stream;
        TP_CUDA_TRY(c, tp_launch_stage(c, stage, current, s), "launch of a stage kernel");
    }
    return *body_capturing ? close_body(c, body_capturing) : TP_OK;
}

/* Capture the step for parity `current` into graph[current] and instantiate
 * it. On failure every capture is ended and the graph freed. */
static tp_status build_graph(tp_cuda_batch *c, int current)
{
    if (c->exec[current]) { /* left by an earlier attempt that failed on the other parity */
        cudaGraphExecDestroy(c->exec[current]);
        c->exec[current] = NULL;
    }
    if (c->graph[current]) {
        cudaGraphDestroy(c->graph[current]);
        c->graph[current] = NULL;
    }
    cudaGraph_t g = NULL;
    TP_CUDA_TRY(c, cudaGraphCreate(&g, 0), "cudaGraphCreate");
    cudaError_t err = cudaStreamBeginCaptureToGraph(c->stream, g, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        cudaGraphDestroy(g);
        return tp_cuda_fail(c, err, "cudaStreamBeginCaptureToGraph");
    }
    int body_capturing = 0;
    tp_status st = capture_stages(c, g, current, &body_capturing);
    cudaGraph_t scrap = NULL;
    if (body_capturing) cudaStreamEndCapture(c->body_stream, &scrap);
    cudaGraph_t captured = NULL;
    err = cudaStreamEndCapture(c->stream, &captured);
    if (st == TP_OK && err != cudaSuccess) st = tp_cuda_fail(c, err, "cudaStreamEndCapture");
    if (st == TP_OK && (err = cudaGraphInstantiate(&c->exec[current], g, 0)) != cudaSuccess)
        st = tp_cuda_fail(c, err, "cudaGraphInstantiate");
    if (st != TP_OK) {
        cudaGetLastError();
        cudaGraphDestroy(g);
        return st;
    }
    c->graph[current] = g;
    return TP_OK;
}

extern "C" tp_status tp_cuda_step(tp_cuda_batch *c, int current)
{
    if (!c->graphs_ready) { /* captured once per batch, at the first step */
        for (int parity = 0; parity < 2; ++parity) {
            tp_status st = build_graph(c, parity);
            if (st != TP_OK) return st;
        }
        c->graphs_ready = 1;
    }
    TP_CUDA_TRY(c, cudaGraphLaunch(c->exec[current], c->stream), "cudaGraphLaunch (the step)");
    return TP_OK;
}

extern "C" tp_status tp_cuda_reset(tp_cuda_batch *c, const int32_t *worlds, const uint32_t *episode, int count)
{
    for (int first = 0; first < count; first += TP_RESET_CHUNK) {
        int n = count - first < TP_RESET_CHUNK ? count - first : TP_RESET_CHUNK;
        TP_CUDA_TRY(c, tp_launch_reset(c, worlds + first, episode, n, c->stream), "launch of tp_reset_kernel");
    }
    return TP_OK;
}
