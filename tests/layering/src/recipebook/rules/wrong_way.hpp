#pragma once
#include "recipebook/core/layout.hpp"
#include "recipebook/search/planner.hpp"
