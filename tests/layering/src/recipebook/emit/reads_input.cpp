#include "recipebook/catalog/yaml_tree.hpp"
void f() { auto text = rb::read_text_file("plan.json"); }
