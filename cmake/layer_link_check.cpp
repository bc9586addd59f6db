// The link check of one layer (CMakeLists.txt, layer_link_<layer>): every object of the layer's
// library is linked with only the layers below it, so a call into a higher layer is an undefined
// symbol and the build fails.
int main() { return 0; }
