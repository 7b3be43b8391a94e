// The library half of the compile + link test.
int gour_triple(int v) {
    return 3 * v;
}
