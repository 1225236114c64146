#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"
TEST_CASE("placeholder") {}
