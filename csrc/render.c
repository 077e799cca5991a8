/* render.c - tp_render_state (tp_batch_render calls it): worlds of a state
 * view drawn into an RGB image with cairo, each body coloured by its sleep
 * state (awake red, sleep-checking orange, sleeping grey, static dark), as a
 * debug view would (docs/pictures.md).
 *
 * An orthographic view from the front right and above. Every shape becomes
 * flat polygons (box, wedge, corner wedge: their faces; cylinder and capsule:
 * a 16-sided prism) or discs (ball, capsule ends); faces turned away from the
 * viewer are dropped and the rest are painted far to near, which is exact for
 * one convex body and good enough between bodies for a debug picture. Static
 * bodies (ground, walls) are painted first, under every dynamic body, so that
 * walls never hide what is inside them. */
#include "error.h"
#include "render_items.h"
#include "torpor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RENDER_MAX_WORLDS 256
#define RENDER_MAX_SIZE 8192
#define RENDER_TITLE_BAND 60

tp_render_def tp_default_render_def(void)
{
    tp_render_def d;
    memset(&d, 0, sizeof d);
    d.width = 640;
    d.height = 480;
    d.world_count = 1;
    return d;
}

/* ---------------------------------------------------------------- arguments and bounds (no cairo needed) */

static int world_of(const tp_render_def *def, int i) { return def->worlds ? def->worlds[i] : i; }

/* The def's worlds against the `worlds` there are; `fn` names the caller in the message. */
static tp_status check_worlds(const char *fn, int worlds, const tp_render_def *def)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: NULL def", fn);
    if (def->world_count < 1 || def->world_count > RENDER_MAX_WORLDS)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world_count %d is outside [1, %d]", fn, def->world_count,
                       RENDER_MAX_WORLDS);
    for (int i = 0; i < def->world_count; ++i)
        if (world_of(def, i) < 0 || world_of(def, i) >= worlds)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: worlds[%d] = %d is outside [0, %d) (the worlds there are)", fn, i,
                           world_of(def, i), worlds);
    return TP_OK;
}

/* A model and a state view that go together: the view's bodies are the model's. */
static tp_status check_scene(const char *fn, const tp_model *model, const tp_state_view *view)
{
    if (!model || !view) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: NULL model or view", fn);
    if (view->bodies != tp_model_body_count(model) || view->worlds < 1)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: the view has %d worlds of %d bodies (the model has %d bodies)", fn,
                       view->worlds, view->bodies, tp_model_body_count(model));
    return TP_OK;
}

static tp_status check_def(const char *fn, const tp_model *model, const tp_state_view *view, const tp_render_def *def,
                           const uint8_t *rgb)
{
    tp_status st = check_scene(fn, model, view);
    if (st == TP_OK) st = check_worlds(fn, view->worlds, def);
    if (st != TP_OK) return st;
    if (!rgb) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: NULL rgb", fn);
    int min_height = def->title ? RENDER_TITLE_BAND + 16 : 16;
    if (def->width < 16 || def->width > RENDER_MAX_SIZE || def->height < min_height || def->height > RENDER_MAX_SIZE)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: size %d x %d is outside [16, %d] x [%d, %d] pixels", fn,
                       def->width, def->height, RENDER_MAX_SIZE, min_height, RENDER_MAX_SIZE);
    if (def->has_view_box)
        for (int k = 0; k < 3; ++k)
            if (!isfinite(def->view_box[k]) || !isfinite(def->view_box[k + 3]) || def->view_box[k] > def->view_box[k + 3])
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: view_box axis %d is [%g, %g] (need finite, min <= max)", fn,
                               k, (double)def->view_box[k], (double)def->view_box[k + 3]);
    return TP_OK;
}

/* Radius about the body origin that holds the body's shapes (m). */
static double body_radius(const tp_body_def *d)
{
    if (d->shape_count == 0)
        return 0.5 * sqrt(d->size[0] * d->size[0] + d->size[1] * d->size[1] + d->size[2] * d->size[2]);
    double r = 0.0;
    for (int i = 0; i < d->shape_count; ++i) {
        const tp_shape_def *s = &d->shapes[i];
        double o = sqrt(s->pos[0] * s->pos[0] + s->pos[1] * s->pos[1] + s->pos[2] * s->pos[2]);
        r = fmax(r, o + 0.5 * sqrt(s->size[0] * s->size[0] + s->size[1] * s->size[1] + s->size[2] * s->size[2]));
    }
    return r;
}

/* Bounds of the drawn worlds' dynamic bodies along three axes (world axes, or
 * the view's right and up): b = min x, y, z, max x, y, z of each body's origin
 * projected on the axes, +- its radius. Returns 0 if no body counts. */
static int dynamic_bounds(const tp_state_view *s, const tp_body_def *defs, const tp_render_def *def, const v3 axes[3],
                          double b[6])
{
    int any = 0;
    for (int k = 0; k < 3; ++k) b[k] = 1e30, b[k + 3] = -1e30;
    for (int i = 0; i < def->world_count; ++i)
        for (int j = 0; j < s->bodies; ++j) {
            size_t k = (size_t)world_of(def, i) * (size_t)s->bodies + (size_t)j;
            if (defs[j].type == TP_BODY_STATIC || s->removed[k]) continue;
            v3 p = {s->pos[3 * k], s->pos[3 * k + 1], s->pos[3 * k + 2]};
            double r = body_radius(&defs[j]);
            for (int a = 0; a < 3; ++a) {
                b[a] = fmin(b[a], vdot(p, axes[a]) - r);
                b[a + 3] = fmax(b[a + 3], vdot(p, axes[a]) + r);
            }
            any = 1;
        }
    if (!any)
        for (int k = 0; k < 3; ++k) b[k] = -1.0, b[k + 3] = 1.0;
    return any;
}

/* The body definitions of the model (freed by the caller). */
static tp_status read_defs(const char *fn, const tp_model *m, tp_body_def **defs)
{
    int n = tp_model_body_count(m);
    *defs = malloc((size_t)(n > 0 ? n : 1) * sizeof **defs);
    if (!*defs) return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory for %d bodies", fn, n);
    for (int i = 0; i < n; ++i) tp_model_body(m, i, &(*defs)[i]);
    return TP_OK;
}

/* The batch's state as a view (a host copy on CUDA, as tp_batch_state). */
static tp_status batch_view(const char *fn, tp_batch *batch, tp_state_view *s)
{
    if (!batch) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: NULL batch", fn);
    return tp_batch_state(batch, s);
}

tp_status tp_render_state_box(const tp_model *model, const tp_state_view *view, const tp_render_def *def, float box[6])
{
    const char *fn = "tp_render_state_box";
    tp_status st = check_scene(fn, model, view);
    if (st == TP_OK) st = check_worlds(fn, view->worlds, def);
    if (st != TP_OK) return st;
    if (!box) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: NULL box", fn);
    tp_body_def *defs = NULL;
    if ((st = read_defs(fn, model, &defs)) != TP_OK) return st;
    const v3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double b[6];
    dynamic_bounds(view, defs, def, axes, b);
    for (int k = 0; k < 6; ++k) box[k] = (float)b[k];
    free(defs);
    return TP_OK;
}

tp_status tp_batch_render_box(tp_batch *batch, const tp_render_def *def, float box[6])
{
    tp_state_view s;
    tp_status st = batch_view("tp_batch_render_box", batch, &s);
    return st == TP_OK ? tp_render_state_box(tp_batch_model(batch), &s, def, box) : st;
}

tp_status tp_batch_render(tp_batch *batch, const tp_render_def *def, uint8_t *rgb)
{
    tp_state_view s;
    tp_status st = batch_view("tp_batch_render", batch, &s);
    return st == TP_OK ? tp_render_state(tp_batch_model(batch), &s, def, rgb) : st;
}

#ifndef TP_HAVE_CAIRO

int tp_render_available(void) { return 0; }

tp_status tp_render_state(const tp_model *model, const tp_state_view *view, const tp_render_def *def, uint8_t *rgb)
{
    tp_status st = check_def("tp_render_state", model, view, def, rgb);
    if (st != TP_OK) return st;
    return tp_fail(TP_ERR_BACKEND, "tp_render_state: this build of torpor has no cairo (install libcairo2-dev and rebuild)");
}

#else

#include <cairo.h>

int tp_render_available(void) { return 1; }

static const float color_awake[3] = {0.85f, 0.16f, 0.15f}, color_checking[3] = {1.0f, 0.55f, 0.1f},
                   color_sleeping[3] = {0.66f, 0.66f, 0.66f}, color_static[3] = {0.3f, 0.32f, 0.35f};

static const float *body_color(const tp_body_def *d, uint8_t state)
{
    if (d->type == TP_BODY_STATIC) return color_static;
    if (state == TP_SLEEPING) return color_sleeping;
    if (state == TP_CHECKING) return color_checking;
    return color_awake;
}

/* Screen bounds (world units; min right, min up, max right, max up) every cell
 * frames: the view box's corners, or the dynamic bodies now. */
static void screen_bounds(const tp_state_view *s, const tp_body_def *defs, const tp_render_def *def, const view3 *vw,
                          double b[4])
{
    if (!def->has_view_box) {
        const v3 axes[3] = {vw->right, vw->up, vw->into};
        double b6[6];
        dynamic_bounds(s, defs, def, axes, b6);
        b[0] = b6[0], b[1] = b6[1], b[2] = b6[3], b[3] = b6[4];
        return;
    }
    b[0] = b[1] = 1e30;
    b[2] = b[3] = -1e30;
    for (int i = 0; i < 8; ++i) {
        v3 c = {def->view_box[i & 1 ? 3 : 0], def->view_box[i & 2 ? 4 : 1], def->view_box[i & 4 ? 5 : 2]};
        double x = vdot(c, vw->right), y = vdot(c, vw->up);
        b[0] = fmin(b[0], x), b[1] = fmin(b[1], y), b[2] = fmax(b[2], x), b[3] = fmax(b[3], y);
    }
    /* a flat box (one body, a point) still needs an extent to scale by */
    if (b[2] - b[0] < 1e-6) b[0] -= 0.5, b[2] += 0.5;
    if (b[3] - b[1] < 1e-6) b[1] -= 0.5, b[3] += 0.5;
}

static int cmp_depth(const void *a, const void *b)
{
    const item *p = a, *q = b;
    if (p->layer != q->layer) return p->layer - q->layer;
    return (p->depth < q->depth) - (p->depth > q->depth); /* far (large depth) first */
}

/* Paint the items of one world into the cell, mapping world units by `scale`. */
static void paint_items(cairo_t *cr, item_list *l, double ox, double oy, double scale)
{
    qsort(l->items, (size_t)l->count, sizeof(item), cmp_depth);
    cairo_set_line_width(cr, 0.8);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int i = 0; i < l->count; ++i) {
        const item *it = &l->items[i];
        if (it->n == 0) {
            cairo_new_sub_path(cr);
            cairo_arc(cr, ox + it->sx[0] * scale, oy - it->sy[0] * scale, it->radius * scale, 0, 2 * 3.14159265358979);
        } else {
            cairo_move_to(cr, ox + it->sx[0] * scale, oy - it->sy[0] * scale);
            for (int k = 1; k < it->n; ++k) cairo_line_to(cr, ox + it->sx[k] * scale, oy - it->sy[k] * scale);
            cairo_close_path(cr);
        }
        cairo_set_source_rgb(cr, it->rgb[0], it->rgb[1], it->rgb[2]);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.7);
        cairo_stroke(cr);
    }
}

/* The counts of world w. Under the island policy the checking bodies are
 * awake ones (timer running); under the assembly policy (`held`) they are
 * held in place and counted apart. */
static void cell_label(cairo_t *cr, const tp_state_view *s, int w, double x, double y, int held)
{
    char buf[128];
    snprintf(buf, sizeof buf, held ? "world %d: %d awake, %d checking, %d asleep" : "world %d: %d awake (%d checking), %d asleep",
             w, s->awake_count[w], s->checking_count[w], s->sleeping_count[w]);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 12);
    cairo_move_to(cr, x + 6, y + 16);
    cairo_show_text(cr, buf);
}

static void legend(cairo_t *cr, double x, double y)
{
    const char *names[4] = {"awake", "sleep-checking", "sleeping", "static"};
    const float *colors[4] = {color_awake, color_checking, color_sleeping, color_static};
    cairo_set_font_size(cr, 12);
    for (int i = 0; i < 4; ++i) {
        cairo_set_source_rgb(cr, colors[i][0], colors[i][1], colors[i][2]);
        cairo_rectangle(cr, x, y - 10, 12, 12);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_move_to(cr, x + 16, y);
        cairo_show_text(cr, names[i]);
        x += 130;
    }
}

typedef struct cell_frame {
    double x, y, w, h; /* the cell, pixels */
    int labels, held;
} cell_frame;

/* Draw world w into the cell. */
static void draw_world(cairo_t *cr, const tp_state_view *s, const tp_body_def *defs, int w, const view3 *vw,
                       const double b[4], const cell_frame *cf, item_list *l)
{
    double top = cf->labels ? 24 : 6; /* room for the label */
    double scale = fmin((cf->w - 20) / (b[2] - b[0]), (cf->h - top - 16) / (b[3] - b[1]));
    double ox = cf->x + cf->w / 2 - scale * 0.5 * (b[0] + b[2]);
    double oy = cf->y + top + (cf->h - top - 6) / 2 + scale * 0.5 * (b[1] + b[3]);
    l->count = 0;
    for (int i = 0; i < s->bodies; ++i) {
        size_t k = (size_t)w * (size_t)s->bodies + (size_t)i;
        if (s->removed[k]) continue;
        int first = l->count;
        tp_render_add_body(l, vw, &defs[i], s->pos + 3 * k, s->quat + 4 * k, body_color(&defs[i], s->sleep_state[k]));
        for (int j = first; j < l->count; ++j) l->items[j].layer = defs[i].type != TP_BODY_STATIC;
    }
    cairo_save(cr);
    cairo_rectangle(cr, cf->x, cf->y, cf->w, cf->h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.95, 0.97, 1.0);
    cairo_paint(cr);
    paint_items(cr, l, ox, oy, scale);
    if (cf->labels) cell_label(cr, s, w, cf->x, cf->y, cf->held);
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, cf->x + 0.5, cf->y + 0.5, cf->w - 1, cf->h - 1);
    cairo_stroke(cr);
}

static void draw_title(cairo_t *cr, const char *title)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 15);
    cairo_move_to(cr, 10, 22);
    cairo_show_text(cr, title);
    legend(cr, 10, 46);
}

/* Everything onto the surface; returns 0 when out of memory. */
static int draw_all(cairo_t *cr, const tp_model *model, const tp_render_def *def, const tp_state_view *s,
                    const tp_body_def *defs)
{
    int n = def->world_count;
    int cols = (int)ceil(sqrt((double)n)), rows = (n + cols - 1) / cols;
    double band = def->title ? RENDER_TITLE_BAND : 0;
    double cw = (double)def->width / cols, ch = (def->height - band) / rows;
    view3 vw = tp_render_default_view();
    double b[4];
    screen_bounds(s, defs, def, &vw, b);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    if (def->title) draw_title(cr, def->title);
    tp_sleep_def sd = tp_model_settings(model).sleep;
    item_list l = {NULL, 0, 0, 0};
    for (int i = 0; i < n && !l.failed; ++i) {
        cell_frame cf = {(i % cols) * cw, band + (i / cols) * ch, cw, ch, def->labels,
                         sd.enabled && sd.policy == TP_SLEEP_ASSEMBLY};
        draw_world(cr, s, defs, world_of(def, i), &vw, b, &cf, &l);
    }
    free(l.items);
    return !l.failed;
}

/* cairo's RGB24 pixels (32 bits, x R G B in native order) to packed R, G, B bytes. */
static void copy_pixels(cairo_surface_t *surf, int width, int height, uint8_t *rgb)
{
    cairo_surface_flush(surf);
    const unsigned char *data = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; y < height; ++y) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
        uint8_t *out = rgb + (size_t)y * (size_t)width * 3;
        for (int x = 0; x < width; ++x) {
            out[3 * x] = (uint8_t)(row[x] >> 16);
            out[3 * x + 1] = (uint8_t)(row[x] >> 8);
            out[3 * x + 2] = (uint8_t)row[x];
        }
    }
}

tp_status tp_render_state(const tp_model *model, const tp_state_view *view, const tp_render_def *def, uint8_t *rgb)
{
    const char *fn = "tp_render_state";
    tp_status st = check_def(fn, model, view, def, rgb);
    tp_body_def *defs = NULL;
    if (st == TP_OK) st = read_defs(fn, model, &defs);
    if (st != TP_OK) return st;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, def->width, def->height);
    cairo_t *cr = cairo_create(surf);
    int ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS && draw_all(cr, model, def, view, defs);
    if (ok) copy_pixels(surf, def->width, def->height, rgb);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    free(defs);
    if (!ok)
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "%s: out of memory drawing %d x %d pixels", fn, def->width, def->height);
    return TP_OK;
}

#endif
