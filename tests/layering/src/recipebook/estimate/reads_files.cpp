#include <fstream>
#include "recipebook/rules/check_layout.hpp"
