// The SPIR-V counterpart of ../opencl/invalid.cl, which clang cannot
// compile by design: this one compiles, but broken calls
// gour_undeclared_identifier, which no module defines, so the SPIR-V
// module has an unresolved import and must not build into a program on
// its own. scripts/spirv.sh makes invalid.spv from it.
int gour_undeclared_identifier(int v);

__kernel void broken(__global int *out) {
    out[get_global_id(0)] = gour_undeclared_identifier((int)get_global_id(0));
}
