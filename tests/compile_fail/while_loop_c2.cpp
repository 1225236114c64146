// expect: xlet::while_loop [C2]: body must return the state's type (same tuple size, element types and shapes): the
// state cannot change type across iterations expect: xlet::tensor<double, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    (void)while_loop([](const s32<>& i, const f32<3>&) { return i < 10; },
                     [](const s32<>& i, const f32<3>& v) {
                         return std::tuple{i + 1, convert_element_type<double>(v)};
                     }, // f32 -> f64
                     std::tuple{s32<>(0), f32<3>{}});
}
