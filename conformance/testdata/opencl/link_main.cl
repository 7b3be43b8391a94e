// Compiled on its own, then linked with link_lib.cl.
int gour_triple(int v);

__kernel void linked(__global int *out) {
    size_t i = get_global_id(0);
    out[i] = gour_triple((int)i);
}
