// expect: xlet::add [C5]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> q;
    auto e = q + Q{3}; // a C++ value: a rank-0 tensor<Q> is the operand to use
    (void)e;
}
