// A program that must not build: it uses an undeclared identifier.
__kernel void broken(__global int *out) {
    out[get_global_id(0)] = gour_undeclared_identifier;
}
