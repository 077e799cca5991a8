/* row_law_lanes.h - the row law on a lane type (kernels/row_law.h): written
 * once, instantiated by row_law.h on float (the scalar sweeps, CPU and
 * device) and by csrc/solver_simd_wide.h on SSE2/AVX2 lanes. No include
 * guard: each instance defines, before including it,
 *   TP_LANE_FN(name), TP_LANE_QUAL      names and qualifiers of its functions
 *   TP_LF, TP_LM, TP_L3                 lane float, lane mask, lane vector (x, y, z)
 *   TP_LF_ADD SUB MUL DIV SQRT MAX GT NEQ SEL ZERO, TP_LM_AND TP_LM_ANY
 *   TP_L3_ADD SUB SCALE DOT CROSS SEL
 * with the scalar operations' rounding (IEEE add, sub, mul, div and sqrt;
 * MAX(a, b) = a > b ? a : b; SEL(m, a, b) = m ? a : b bit for bit), so every
 * instance gives the scalar bits. The definitions are undone at the end. */

/* Does a normal row act in this sweep? Unbiased sweeps (relax, bounce) leave
 * alone a point that has not pushed in a biased sweep of this step: a gap
 * closing in on it is met by the next substep's biased sweeps, before the
 * next position update, so an impact is seen whole in one substep
 * (restitution needs its approach speed). `valid`: the row exists. */
TP_LANE_QUAL TP_LM TP_LANE_FN(active)(TP_LM valid, int use_bias, TP_LF max_normal_impulse)
{
    return use_bias ? valid : TP_LM_AND(valid, TP_LF_NEQ(max_normal_impulse, TP_LF_ZERO));
}

/* Velocity of B's point at arm rb relative to A's at ra: (vb + wb x rb) - (va + wa x ra). */
TP_LANE_QUAL TP_L3 TP_LANE_FN(rel_velocity)(TP_L3 va, TP_L3 wa, TP_L3 ra, TP_L3 vb, TP_L3 wb, TP_L3 rb)
{
    return TP_L3_SUB(TP_L3_ADD(vb, TP_L3_CROSS(wb, rb)), TP_L3_ADD(va, TP_L3_CROSS(wa, ra)));
}

/* Relative speed of the points along d. */
TP_LANE_QUAL TP_LF TP_LANE_FN(speed)(TP_L3 va, TP_L3 wa, TP_L3 ra, TP_L3 vb, TP_L3 wb, TP_L3 rb, TP_L3 d)
{
    return TP_L3_DOT(TP_LANE_FN(rel_velocity)(va, wa, ra, vb, wb, rb), d);
}

/* A row's accumulated impulse after one visit, clamped at zero (it only
 * pushes): acc - mass (speed + target), speed the row's relative speed and
 * target the velocity it aims at (negated). Normal and push-out rows. */
TP_LANE_QUAL TP_LF TP_LANE_FN(impulse)(TP_LF acc, TP_LF mass, TP_LF speed, TP_LF target)
{
    return TP_LF_MAX(TP_LF_SUB(acc, TP_LF_MUL(mass, TP_LF_ADD(speed, target))), TP_LF_ZERO);
}

/* The friction pair's accumulated impulses (i1, i2) after one visit: each
 * moved by its mass toward its slip speed (s1, s2; 0 but in the shock pass)
 * from its speed (v1, v2), then the pair scaled into the circular cone
 * |(l1, l2)| <= limit, limit = friction x normal impulse. */
TP_LANE_QUAL void TP_LANE_FN(friction)(TP_LF i1, TP_LF i2, TP_LF m1, TP_LF m2, TP_LF v1, TP_LF v2, TP_LF s1,
                                       TP_LF s2, TP_LF limit, TP_LF *l1, TP_LF *l2)
{
    TP_LF a = TP_LF_SUB(i1, TP_LF_MUL(m1, TP_LF_SUB(v1, s1)));
    TP_LF b = TP_LF_SUB(i2, TP_LF_MUL(m2, TP_LF_SUB(v2, s2)));
    TP_LF len2 = TP_LF_ADD(TP_LF_MUL(a, a), TP_LF_MUL(b, b));
    TP_LM over = TP_LF_GT(len2, TP_LF_MUL(limit, limit));
    if (TP_LM_ANY(over)) {
        TP_LF scale = TP_LF_SEL(TP_LF_GT(limit, TP_LF_ZERO), TP_LF_DIV(limit, TP_LF_SQRT(len2)), TP_LF_ZERO);
        a = TP_LF_SEL(over, TP_LF_MUL(a, scale), a);
        b = TP_LF_SEL(over, TP_LF_MUL(b, scale), b);
    }
    *l1 = a;
    *l2 = b;
}

/* An impulse's parts: d1 x1 + d2 x2 (friction pair), and
 * (d1 x1 + d2 x2) + d3 x3 (a point's three rows: the warm start). */
TP_LANE_QUAL TP_L3 TP_LANE_FN(sum2)(TP_L3 d1, TP_LF x1, TP_L3 d2, TP_LF x2)
{
    return TP_L3_ADD(TP_L3_SCALE(d1, x1), TP_L3_SCALE(d2, x2));
}

TP_LANE_QUAL TP_L3 TP_LANE_FN(sum3)(TP_L3 d1, TP_LF x1, TP_L3 d2, TP_LF x2, TP_L3 d3, TP_LF x3)
{
    return TP_L3_ADD(TP_LANE_FN(sum2)(d1, x1, d2, x2), TP_L3_SCALE(d3, x3));
}

/* Impulse p on a row's bodies where `on`: A takes -p (v -= p inv_m, w -= dw,
 * dw its angular response), B takes +p. Only simulated bodies are on. */
TP_LANE_QUAL void TP_LANE_FN(take)(TP_L3 *v, TP_L3 *w, TP_LM on, TP_LF inv_m, TP_L3 p, TP_L3 dw)
{
    *v = TP_L3_SEL(on, TP_L3_SUB(*v, TP_L3_SCALE(p, inv_m)), *v);
    *w = TP_L3_SEL(on, TP_L3_SUB(*w, dw), *w);
}

TP_LANE_QUAL void TP_LANE_FN(give)(TP_L3 *v, TP_L3 *w, TP_LM on, TP_LF inv_m, TP_L3 p, TP_L3 dw)
{
    *v = TP_L3_SEL(on, TP_L3_ADD(*v, TP_L3_SCALE(p, inv_m)), *v);
    *w = TP_L3_SEL(on, TP_L3_ADD(*w, dw), *w);
}

#undef TP_LANE_FN
#undef TP_LANE_QUAL
#undef TP_LF
#undef TP_LM
#undef TP_L3
#undef TP_LF_ADD
#undef TP_LF_SUB
#undef TP_LF_MUL
#undef TP_LF_DIV
#undef TP_LF_SQRT
#undef TP_LF_MAX
#undef TP_LF_GT
#undef TP_LF_NEQ
#undef TP_LF_SEL
#undef TP_LF_ZERO
#undef TP_LM_AND
#undef TP_LM_ANY
#undef TP_L3_ADD
#undef TP_L3_SUB
#undef TP_L3_SCALE
#undef TP_L3_DOT
#undef TP_L3_CROSS
#undef TP_L3_SEL
