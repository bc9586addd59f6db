#include <fstream>
#include "recipebook/search/planner.hpp"
