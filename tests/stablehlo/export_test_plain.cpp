// Compiled without XLET_TRACE (no export.hpp first): its ops do not record, and running one while
// a recorder is active is an error that names the cause (export_test.cpp checks it).
#include <xlet/xlet.hpp>

xlet::f32<4> untraced_unit_op(const xlet::f32<4>& x) {
    return xlet::eval(xlet::exp(x) * 3.0f - x); // an expression type no traced unit instantiates
}

// A copy made here, without XLET_TRACE, still reaches an active recorder (through the hook the
// recorder sets: this unit has no definition of its members): the copy holds the traced value.
xlet::f32<4> untraced_unit_copy(const xlet::f32<4>& x) {
    xlet::f32<4> y = x;
    return y;
}
