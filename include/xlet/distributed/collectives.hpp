// XLA's collectives on a replica_context: all_reduce, cross_replica_sum, all_gather, reduce_scatter,
// all_to_all, collective_permute, collective_broadcast, replica_id, partition_id.
//
// Shapes and the attributes they depend on are static (template arguments, in the spec's order);
// groups and channels are run-time, checked against the pool's size (xlet::error). Every op takes
// the context first and returns a fresh tensor; inputs are read in place, never copied first.
//
// Static rules (compile-fail tests tests/compile_fail/<op>_c<n>.cpp):
//   all_reduce      C1 the computation takes two elements of the operand type and returns one
//   all_gather      C1 0 <= all_gather_dimension < rank;  C2 shard_count > 0
//   reduce_scatter  C1 0 <= scatter_dimension < rank;  C2 shard_count > 0 and divides that dimension;
//                   C3 the computation as all_reduce's C1
//   all_to_all      C1 0 <= split_dimension < rank;  C2 0 <= concat_dimension < rank;
//                   C3 split_count > 0 and divides dim(split_dimension)
// Run-time rules (xlet::error naming the op and the groups): ids in range and unique; all_reduce,
// all_gather, reduce_scatter and all_to_all need every id in a group; all_gather, reduce_scatter
// and all_to_all need groups of equal size equal to shard_count / split_count; collective_permute
// needs unique sources and unique targets.
#pragma once
#include "../core/simd.hpp" // before TBB: see core/simd.hpp

#include <cstring>
#include <string>
#include <type_traits>

#include "../core/owner.hpp"
#include "../core/tensor.hpp"
#include "../eval/assign.hpp"
#include "../ops/elementwise/binary.hpp"
#include "../ops/elementwise/map.hpp"
#include "transport.hpp"

namespace xlet {

namespace detail {

// "f32[4,16]": the operand as devices compare it, built once per type.
template<class A>
std::string_view operand_label() {
    static const std::string s = [] {
        std::string r(xla_name<typename A::value_type>);
        r += '[';
        for (std::size_t i = 0; i < A::rank; ++i) {
            if (i) r += ',';
            r += std::to_string(A::extents[i]);
        }
        r += ']';
        return r;
    }();
    return s;
}

template<class T, auto E>
using array_of_extents = typename tensor_of_impl<T, E, std::make_index_sequence<E.size()>>::type;

// The reduction computation as an element-wise map over fixed-size blocks: the same instructions as
// map(f, x, y) (SIMD for xlet's functors and opted-in callables, scalars otherwise), so a block
// boundary never changes an element's result.
template<class T, class F>
struct as_result {
    F f;
    template<class A, class B>
    T operator()(const A& a, const B& b) const {
        return static_cast<T>(f(a, b));
    }
};
template<class T, class F>
void combine_blocks(const void* fp, void* dst, const void* a, const void* b, std::size_t n) {
    const F& f = *static_cast<const F*>(fp);
    T* d = static_cast<T*>(dst);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    std::size_t i = 0;
    auto run = [&]<std::size_t B>(std::integral_constant<std::size_t, B>) {
        for (; i + B <= n; i += B) {
            tensor_map<const T, B> xs(x + i), ys(y + i);
            tensor_map<T, B>(d + i) = map(f, xs, ys);
        }
    };
    run(std::integral_constant<std::size_t, 1024>{});
    run(std::integral_constant<std::size_t, 32>{});
    run(std::integral_constant<std::size_t, 1>{});
}

template<class F, class T>
consteval bool reduction_fits() {
    if constexpr (!std::is_invocable_v<const F&, T, T>)
        return false;
    else
        return std::is_convertible_v<std::invoke_result_t<const F&, T, T>, T>;
}

// The computation a block of the transport calls: f itself when it returns T (so xlet's functors
// keep their SIMD form), else f with its result converted.
template<class T, class F>
auto reduction_of(const F& f) {
    if constexpr (std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const F&, T, T>>, T>)
        return f;
    else
        return as_result<T, F>{f};
}

// Dimension `dim` of E exists and `count` (> 0) divides it: reduce_scatter C2, all_to_all C3.
template<std::size_t R>
constexpr bool divides(const extents_t<R>& e, std::int64_t dim, std::int64_t count) {
    return dim >= 0 && static_cast<std::size_t>(dim) < R && count > 0 &&
           e[static_cast<std::size_t>(dim)] % static_cast<std::size_t>(count) == 0;
}

template<class T, class G>
combiner make_combiner(const G& g) {
    return {&combine_blocks<T, G>, &g};
}

// The extents with dimension `d` multiplied (gather) or divided (scatter) by c.
template<std::size_t R>
constexpr extents_t<R> scaled(extents_t<R> e, std::int64_t d, std::int64_t mul, std::int64_t div) {
    if (d >= 0 && static_cast<std::size_t>(d) < R && div > 0)
        e[static_cast<std::size_t>(d)] =
            e[static_cast<std::size_t>(d)] * static_cast<std::size_t>(mul) / static_cast<std::size_t>(div);
    return e;
}

template<std::size_t R>
box make_box(const extents_t<R>& piece, const extents_t<R>& src, const extents_t<R>& dst, std::size_t eb) {
    box b;
    b.rank = R;
    b.elem_bytes = eb;
    const auto ss = row_major_strides(src), ds = row_major_strides(dst);
    for (std::size_t i = 0; i < R; ++i) {
        b.size[i] = piece[i];
        b.src_stride[i] = ss[i];
        b.dst_stride[i] = ds[i];
    }
    return b;
}

template<class = void>
void check_group_size(const char* op, const char* attr, std::int64_t want, const group_view& g,
                      const collective_opts& o) {
    if (static_cast<std::int64_t>(g.members.size()) != want)
        throw error(op, attr, " is ", want, " but the group of this device has ", g.members.size(),
                    " members (replica_groups ", groups_string(o.replica_groups), ")");
}

// (valid until the device's next group_of: the transports copy what they keep)
template<class Ctx>
const group_view& group_of(const char* op, Ctx& ctx, group_mode mode, const collective_opts& o, bool cover,
                           bool equal) {
    auto& c = ctx.last_group(); // (dependent: its members' copies are compiled only where used)
    if (c.valid && c.mode == static_cast<int>(mode) && c.cover == cover && c.equal == equal &&
        c.groups == o.replica_groups)
        return c.view;
    c.valid = false;
    c.view = resolve_group(op, mode, o.replica_groups, ctx.replica_count(), ctx.partition_count(), ctx.replica_id(),
                           ctx.partition_id(), cover, equal);
    c.groups = o.replica_groups;
    c.mode = static_cast<int>(mode);
    c.cover = cover;
    c.equal = equal;
    c.valid = true;
    return c.view;
}

// What a collective keeps while it runs: the result, the operand when it had to be evaluated, the
// reduction object and anything else the transport points at. On the stack for the synchronous
// forms, on the heap (a stable address) behind the handle of the *_start forms.
// What a device that receives nothing gets: zeros, which for a quantized type are its zero points
// (the stored integers of the real 0, per slice of the axis for a per-axis type), not stored 0s.
template<class A>
void fill_real_zero(A& out) {
    using T = typename A::value_type;
    auto* p = out.data();
    if constexpr (is_per_axis_quantized<T>) {
        constexpr auto ax = static_cast<std::size_t>(T::axis);
        std::size_t inner = 1;
        for (std::size_t d = ax + 1; d < A::rank; ++d)
            inner *= A::extents[d];
        for (std::size_t i = 0; i < A::size(); ++i) {
            const std::size_t c = T::zero_points.size() == 1 ? 0 : (i / inner) % A::extents[ax];
            p[i].stored = static_cast<typename T::storage_type>(T::zero_points[c]);
        }
    } else if constexpr (is_quantized<T>) {
        for (std::size_t i = 0; i < A::size(); ++i)
            p[i].stored = static_cast<typename T::storage_type>(T::zero_point);
    } else if constexpr (A::size() > 0) {
        std::memset(static_cast<void*>(p), 0, A::size() * sizeof(T));
    }
}

template<class Out>
struct async_state_base {
    replica_context* ctx;
    Out out{no_init};
    pending_ptr p;
    bool receives_nothing = false; // out is the real zero once the transport is done (fill_real_zero)
    int traced = -1;               // to_stablehlo: the value id `out` gets when it is done (recv)
    explicit async_state_base(replica_context& c) : ctx(&c) {}
    virtual ~async_state_base() = default;
};
template<class Out, class Extra>
struct async_state final : async_state_base<Out> {
    Extra extra;
    template<class... A>
    async_state(replica_context& c, A&&... a) : async_state_base<Out>(c), extra(std::forward<A>(a)...) {}
};

} // namespace detail

// The handle a *_start form returns; *_done (or .done()) waits for the result. Until then the
// operand must stay alive and unmodified (an expression operand is kept by the handle). Destroying
// a handle that was not done finishes the collective first, so no other device reads freed memory.
template<class Out>
class async_collective {
public:
    using value_type = Out;
    explicit async_collective(detail::owner<detail::async_state_base<Out>> s) : s_(std::move(s)) {}
    async_collective(async_collective&&) noexcept = default;
    async_collective& operator=(async_collective&& o) noexcept {
        if (this != &o) {
            finish_quietly();
            s_ = std::move(o.s_);
        }
        return *this;
    }
    ~async_collective() { finish_quietly(); }

    Out done() {
        if (!s_) throw error("async collective", "done() on a handle that is already done or moved from");
        auto s = std::move(s_);
        trace::recorder* const r = trace::current();
        if (s->p) {
            trace::pause_if paused(r); // (a device may resume on another thread: trace::pause_if)
            s->ctx->transport_().complete(*s->ctx, *s->p);
        }
        if constexpr (is_array_leaf<Out>)
            if (s->receives_nothing) detail::fill_real_zero(s->out);
        if constexpr (trace::compiled_in && is_array_leaf<Out>)
            if (r && s->traced >= 0) [[unlikely]]
                trace::bind(*r, s->out, s->traced);
        return std::move(s->out);
    }

    // to_stablehlo: the value id the result gets when done (the op was recorded at the start).
    void trace_as(int id) {
        if (s_) s_->traced = id;
    }

private:
    void finish_quietly() noexcept {
        if (!s_ || !s_->p) return;
        try {
            s_->ctx->transport_().complete(*s_->ctx, *s_->p);
        } catch (...) {
        }
        s_.reset();
    }
    detail::owner<detail::async_state_base<Out>> s_;
};

namespace detail {

// Runs `launch(state)` on a state on the stack (synchronous) or the heap (async), then returns the
// result or the handle.
template<bool Async, class Out, class Extra, class Launch, class... A>
auto run_collective(replica_context& ctx, Launch&& launch, A&&... extra) {
    // (every form runs with the recorder paused and is recorded as its op: this only catches a
    // path that forgot to)
    trace::not_exported(Async ? "an async collective" : "a collective");
    if constexpr (Async) {
        auto st = make_owner<async_state<Out, Extra>>(ctx, std::forward<A>(extra)...);
        launch(*st);
        return async_collective<Out>(std::move(st));
    } else {
        async_state<Out, Extra> st(ctx, std::forward<A>(extra)...);
        launch(st);
        if constexpr (is_array_leaf<Out>)
            if (st.receives_nothing) fill_real_zero(st.out);
        return std::move(st.out);
    }
}

template<class X>
using held_t = decltype(as_array(std::declval<X>()));

template<bool Async, class X, class F>
auto all_reduce_impl(replica_context& ctx, X&& x, const F& f, const collective_opts& o) {
    using T = element_of<X>;
    using A = tensor_type_of<X>;
    using Red = decltype(reduction_of<T>(f));
    return run_collective<Async, A, std::tuple<held_t<X>, Red>>(
        ctx,
        [&](auto& st) {
            const auto& a = std::get<0>(st.extra);
            const auto mode = mode_of("all_reduce", o, true);
            const auto& g = group_of("all_reduce", ctx, mode, o, true, false);
            const collective_desc d{"all_reduce", operand_label<A>(), {}, {}, o.channel_id, mode, &o.replica_groups};
            st.p = ctx.transport_().all_reduce(ctx, d, g, a.data(), st.out.data(), A::size(), sizeof(T),
                                               make_combiner<T>(std::get<1>(st.extra)), Async);
        },
        as_array(std::forward<X>(x)), reduction_of<T>(f));
}

template<std::int64_t Dim, std::int64_t ShardCount, class X>
inline constexpr auto gathered_extents = scaled(tensor_type_of<X>::extents, Dim, ShardCount, 1);

template<bool Async, std::int64_t Dim, std::int64_t ShardCount, class X>
auto all_gather_impl(replica_context& ctx, X&& x, const collective_opts& o) {
    using T = element_of<X>;
    using A = tensor_type_of<X>;
    constexpr auto oe = gathered_extents<Dim, ShardCount, X>;
    using Out = array_of_extents<T, oe>;
    return run_collective<Async, Out, std::tuple<held_t<X>>>(
        ctx,
        [&](auto& st) {
            const auto& a = std::get<0>(st.extra);
            const auto mode = mode_of("all_gather", o, true);
            const auto& g = group_of("all_gather", ctx, mode, o, true, true);
            check_group_size("all_gather", "shard_count", ShardCount, g, o);
            auto b = make_box(A::extents, A::extents, oe, sizeof(T));
            b.src_step = 0; // every member sends its whole operand
            b.dst_step = static_cast<std::ptrdiff_t>(A::extents[Dim]) * b.dst_stride[Dim];
            const collective_desc d{"all_gather",          operand_label<A>(), {Dim, ShardCount},
                                    all_gather_attr_names, o.channel_id,       mode,
                                    &o.replica_groups};
            st.p = ctx.transport_().exchange(ctx, d, g, a.data(), st.out.data(), b, Async);
        },
        as_array(std::forward<X>(x)));
}

template<bool Async, class X>
auto collective_permute_impl(replica_context& ctx, X&& x, const source_target_pairs_t& pairs, std::int64_t channel_id) {
    using T = element_of<X>;
    using A = tensor_type_of<X>;
    return run_collective<Async, A, std::tuple<held_t<X>>>(
        ctx,
        [&](auto& st) {
            const auto& a = std::get<0>(st.extra);
            const bool cross_partition = channel_id > 0;
            const std::uint32_t domain = cross_partition ? ctx.partition_count() : ctx.replica_count();
            const std::uint32_t self = cross_partition ? ctx.partition_id() : ctx.replica_id();
            std::vector<char> is_source(domain, 0), is_target(domain, 0);
            std::ptrdiff_t source = -1;
            replica_groups_t as_groups;
            for (const auto& [s, t] : pairs) {
                if (s < 0 || t < 0 || s >= static_cast<std::int64_t>(domain) || t >= static_cast<std::int64_t>(domain))
                    throw error("collective_permute", "source_target_pairs names (", s, ", ", t, "), outside [0, ",
                                domain, ")");
                if (is_source[static_cast<std::size_t>(s)]++)
                    throw error("collective_permute", "source ", s, " appears in two pairs");
                if (is_target[static_cast<std::size_t>(t)]++)
                    throw error("collective_permute", "target ", t, " appears in two pairs");
                if (t == static_cast<std::int64_t>(self)) source = s;
                as_groups.push_back({s, t});
            }
            // The group: every device of this scope (same partition, or same replica), in id order.
            group_view g;
            for (std::uint32_t i = 0; i < domain; ++i)
                g.members.push_back(cross_partition ? ctx.replica_id() * ctx.partition_count() + i
                                                    : i * ctx.partition_count() + ctx.partition_id());
            g.me = self;
            const collective_desc d{"collective_permute",
                                    operand_label<A>(),
                                    {},
                                    {},
                                    channel_id,
                                    cross_partition ? group_mode::cross_partition : group_mode::cross_replica,
                                    &as_groups};
            st.p = ctx.transport_().copy_from(ctx, d, g, source, a.data(), st.out.data(), A::size() * sizeof(T), Async);
            st.receives_nothing = source < 0 && is_quantized<T>; // (other types: the transport wrote zeros)
        },
        as_array(std::forward<X>(x)));
}

// to_stablehlo: a collective's attributes as StableHLO spells them. Unequal groups are padded with
// -1, as StableHLO's replica_groups are.
template<class = void>
std::string int_rows_attr(const std::vector<std::vector<std::int64_t>>& rows) {
    std::size_t cols = 0;
    for (const auto& r : rows)
        cols = std::max(cols, r.size());
    if (rows.empty() || cols == 0) return "dense<> : tensor<0x0xi64>";
    std::string s = "dense<[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        s += i ? ", [" : "[";
        for (std::size_t j = 0; j < cols; ++j)
            s += (j ? ", " : "") + std::to_string(j < rows[i].size() ? rows[i][j] : -1);
        s += "]";
    }
    return s + "]> : tensor<" + std::to_string(rows.size()) + "x" + std::to_string(cols) + "xi64>";
}
template<class = void>
std::string channel_attr(std::int64_t channel_id) {
    return channel_id > 0
               ? ", channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(channel_id) + ", type = 1>"
               : std::string();
}
template<class = void>
std::string permute_attrs(const source_target_pairs_t& pairs, std::int64_t channel_id) {
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto& [s, t] : pairs)
        rows.push_back({s, t});
    return "source_target_pairs = " + int_rows_attr(rows) + channel_attr(channel_id);
}
template<class = void>
std::string collective_attrs(const collective_opts& o, bool global_ids = true) {
    return "replica_groups = " + int_rows_attr(o.replica_groups) + channel_attr(o.channel_id) +
           (global_ids && o.use_global_device_ids ? ", use_global_device_ids" : "");
}
// Traced collectives: the op over its operand, with the computation as a region when there is one
// (F = void: none). The recorder is paused while the collective runs, so a device that suspends
// in it and resumes on another thread takes the recorder along (trace::pause_if).
template<class F, class Attrs, class Run, class X>
auto traced(const char* name, const Attrs& attrs, Run&& run, const X& x, const F* f = nullptr) {
    trace::recorder* const r = trace::current();
    std::vector<int> ins, regions;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            ins = trace::operand_ids(*r, x);
            if constexpr (!std::is_void_v<F>)
                regions = {trace::computation_of<std::tuple<element_of<X>>, trace::args::twice>(*r, *f, name)};
        }
    using R = decltype(run());
    if constexpr (requires {
                      typename R::value_type;
                      &R::trace_as;
                  }) {
        // A *_start form: the op is recorded now, its result bound by *_done (async_collective).
        int id = -1;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]]
                id = r->emit(name, std::move(ins), {trace::type_of<typename R::value_type>()}, attrs(),
                             std::move(regions));
        trace::pause_if paused(r);
        R h = run();
        h.trace_as(id);
        return h;
    } else {
        return trace::run_op(r, name, attrs, std::move(ins), std::move(regions), run);
    }
}

} // namespace detail

// ReplicaId(): this device's replica id, a u32 scalar.
inline tensor<std::uint32_t> replica_id(const replica_context& ctx) {
    return trace::heavy(
        "stablehlo.replica_id", [] { return std::string(); }, [&] { return tensor<std::uint32_t>(ctx.replica_id()); });
}
// PartitionId(): this device's partition id, a u32 scalar.
inline tensor<std::uint32_t> partition_id(const replica_context& ctx) {
    return trace::heavy(
        "stablehlo.partition_id", [] { return std::string(); },
        [&] { return tensor<std::uint32_t>(ctx.partition_id()); });
}

// AllReduce(operand, computation, replica_groups, channel_id, use_global_device_ids): every member
// of a group gets f folded over the group's operands in group order, f(f(x_0, x_1), x_2)..., so
// the result does not depend on the thread count. Any computation valid on two elements works;
// xlet's functors (add_fn, max_fn, ...) and opted-in callables run on SIMD registers.
namespace detail {
template<class F, class X>
consteval bool all_reduce_check() {
    constexpr bool c1 = reduction_fits<F, element_of<X>>();
    static_assert(diag::got<c1, shown_t<X>, F>::value,
                  "xlet::all_reduce [C1]: the computation must take two elements of the operand's type and return one");
    return c1;
}
} // namespace detail
template<expression X, class F>
auto all_reduce(replica_context& ctx, X&& x, const F& f, const collective_opts& o = {}) {
    if constexpr (detail::all_reduce_check<F, X>())
        return detail::traced<F>(
            "stablehlo.all_reduce", [&] { return detail::collective_attrs(o); },
            [&] { return detail::all_reduce_impl<false>(ctx, std::forward<X>(x), f, o); }, x, &f);
}
// AllReduceStart / AllReduceDone: join now, compute, collect the result later.
template<expression X, class F>
auto all_reduce_start(replica_context& ctx, X&& x, const F& f, const collective_opts& o = {}) {
    if constexpr (detail::all_reduce_check<F, X>())
        return detail::traced<F>(
            "stablehlo.all_reduce", [&] { return detail::collective_attrs(o); },
            [&] { return detail::all_reduce_impl<true>(ctx, std::forward<X>(x), f, o); }, x, &f);
}
template<class Out>
Out all_reduce_done(async_collective<Out>&& h) {
    return h.done();
}

// The tuple form: each element all-reduced with the same computation, in tuple order.
template<class... X, class F>
requires((expression<X> && ...)) auto all_reduce(replica_context& ctx, std::tuple<X...> xs, const F& f,
                                                 const collective_opts& o = {}) {
    return detail::apply(
        [&](auto&&... x) { return std::tuple{all_reduce(ctx, std::forward<decltype(x)>(x), f, o)...}; }, std::move(xs));
}

// CrossReplicaSum(operand, replica_groups): all_reduce with add.
template<expression X>
auto cross_replica_sum(replica_context& ctx, X&& x, const replica_groups_t& groups = {}) {
    return all_reduce(ctx, std::forward<X>(x), add_fn{}, collective_opts{.replica_groups = groups});
}

namespace detail {
template<std::int64_t Dim, std::int64_t ShardCount, class X>
consteval bool all_gather_check() {
    using A = tensor_type_of<X>;
    constexpr bool c1 = Dim >= 0 && static_cast<std::size_t>(Dim) < A::rank;
    constexpr bool c2 = ShardCount > 0;
    static_assert(diag::got<c1, shown_t<X>, diag::dimensions<Dim>>::value,
                  "xlet::all_gather [C1]: all_gather_dimension must be in [0, rank)");
    static_assert(diag::got<c2, shown_t<X>, diag::dimensions<ShardCount>>::value,
                  "xlet::all_gather [C2]: shard_count must be positive");
    return c1 && c2;
}
} // namespace detail

// AllGather(operand, all_gather_dimension, shard_count, replica_groups, channel_id,
// use_global_device_ids): the group's operands concatenated along all_gather_dimension in group
// order; shard_count is the group size.
template<std::int64_t Dim, std::int64_t ShardCount, expression X>
auto all_gather(replica_context& ctx, X&& x, const collective_opts& o = {}) {
    if constexpr (detail::all_gather_check<Dim, ShardCount, X>())
        return detail::traced<void>(
            "stablehlo.all_gather",
            [&] { return "all_gather_dim = " + std::to_string(Dim) + " : i64, " + detail::collective_attrs(o); },
            [&] { return detail::all_gather_impl<false, Dim, ShardCount>(ctx, std::forward<X>(x), o); }, x);
}
// AllGatherStart / AllGatherDone.
template<std::int64_t Dim, std::int64_t ShardCount, expression X>
auto all_gather_start(replica_context& ctx, X&& x, const collective_opts& o = {}) {
    if constexpr (detail::all_gather_check<Dim, ShardCount, X>())
        return detail::traced<void>(
            "stablehlo.all_gather",
            [&] { return "all_gather_dim = " + std::to_string(Dim) + " : i64, " + detail::collective_attrs(o); },
            [&] { return detail::all_gather_impl<true, Dim, ShardCount>(ctx, std::forward<X>(x), o); }, x);
}
template<class Out>
Out all_gather_done(async_collective<Out>&& h) {
    return h.done();
}

// ReduceScatter(operand, computation, scatter_dimension, shard_count, replica_groups, channel_id,
// use_global_device_ids): all_reduce, then member i of the group keeps the i-th of shard_count
// blocks along scatter_dimension. Only the kept block is reduced on each member.
template<std::int64_t Dim, std::int64_t ShardCount, expression X, class F>
auto reduce_scatter(replica_context& ctx, X&& x, const F& f, const collective_opts& o = {}) {
    using T = detail::element_of<X>;
    using A = tensor_type_of<X>;
    constexpr bool c1 = Dim >= 0 && static_cast<std::size_t>(Dim) < A::rank;
    constexpr bool c2 = detail::divides(A::extents, Dim, ShardCount);
    constexpr bool c3 = detail::reduction_fits<F, T>();
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<Dim>>::value,
                  "xlet::reduce_scatter [C1]: scatter_dimension must be in [0, rank)");
    static_assert(!c1 || diag::got<c2, detail::shown_t<X>, diag::dimensions<Dim, ShardCount>>::value,
                  "xlet::reduce_scatter [C2]: shard_count must be positive and divide dim(operand, scatter_dimension)");
    static_assert(
        diag::got<c3, detail::shown_t<X>, F>::value,
        "xlet::reduce_scatter [C3]: the computation must take two elements of the operand's type and return one");
    if constexpr (c1 && c2 && c3) {
        return detail::traced<F>(
            "stablehlo.reduce_scatter",
            [&] { return "scatter_dimension = " + std::to_string(Dim) + " : i64, " + detail::collective_attrs(o); },
            [&] {
                constexpr auto oe = detail::scaled(A::extents, Dim, 1, ShardCount);
                using Out = detail::array_of_extents<T, oe>;
                const auto& a = detail::as_array(std::forward<X>(x));
                const auto mode = detail::mode_of("reduce_scatter", o, true);
                const auto& g = detail::group_of("reduce_scatter", ctx, mode, o, true, true);
                detail::check_group_size("reduce_scatter", "shard_count", ShardCount, g, o);
                Out out(detail::no_init);
                auto b = detail::make_box(oe, A::extents, oe, sizeof(T));
                b.src_step = static_cast<std::ptrdiff_t>(oe[Dim]) * b.src_stride[Dim];
                const detail::collective_desc d{"reduce_scatter",  detail::operand_label<A>(),
                                                {Dim, ShardCount}, detail::reduce_scatter_attr_names,
                                                o.channel_id,      mode,
                                                &o.replica_groups};
                const auto r = detail::reduction_of<T>(f);
                ctx.transport_().reduce_scatter(ctx, d, g, a.data(), out.data(), b, detail::make_combiner<T>(r), false);
                return out;
            },
            x, &f);
    }
}

// AllToAll(operand, split_dimension, concat_dimension, split_count, replica_groups, channel_id):
// block j of the operand (split along split_dimension) goes to the group's j-th member, which
// concatenates the blocks it receives along concat_dimension in group order. channel_id > 0 makes
// the groups name partitions (cross_partition), as StableHLO.
template<std::int64_t SplitDim, std::int64_t ConcatDim, std::int64_t SplitCount, expression X>
auto all_to_all(replica_context& ctx, X&& x, const collective_opts& o = {}) {
    using T = detail::element_of<X>;
    using A = tensor_type_of<X>;
    constexpr bool c1 = SplitDim >= 0 && static_cast<std::size_t>(SplitDim) < A::rank;
    constexpr bool c2 = ConcatDim >= 0 && static_cast<std::size_t>(ConcatDim) < A::rank;
    constexpr bool c3 = detail::divides(A::extents, SplitDim, SplitCount);
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<SplitDim>>::value,
                  "xlet::all_to_all [C1]: split_dimension must be in [0, rank)");
    static_assert(diag::got<c2, detail::shown_t<X>, diag::dimensions<ConcatDim>>::value,
                  "xlet::all_to_all [C2]: concat_dimension must be in [0, rank)");
    static_assert(!c1 || diag::got<c3, detail::shown_t<X>, diag::dimensions<SplitDim, SplitCount>>::value,
                  "xlet::all_to_all [C3]: split_count must be positive and divide dim(operand, split_dimension)");
    if constexpr (c1 && c2 && c3) {
        return detail::traced<void>(
            "stablehlo.all_to_all",
            [&] {
                return "split_dimension = " + std::to_string(SplitDim) +
                       " : i64, concat_dimension = " + std::to_string(ConcatDim) +
                       " : i64, split_count = " + std::to_string(SplitCount) + " : i64, " +
                       detail::collective_attrs(o, false);
            },
            [&] {
                constexpr auto piece = detail::scaled(A::extents, SplitDim, 1, SplitCount);
                constexpr auto oe = detail::scaled(piece, ConcatDim, SplitCount, 1);
                using Out = detail::array_of_extents<T, oe>;
                const auto& a = detail::as_array(std::forward<X>(x));
                if (o.use_global_device_ids)
                    throw error("all_to_all", "use_global_device_ids is not an attribute of all_to_all");
                const auto mode = detail::mode_of("all_to_all", o, false);
                const auto& g = detail::group_of("all_to_all", ctx, mode, o, true, true);
                detail::check_group_size("all_to_all", "split_count", SplitCount, g, o);
                Out out(detail::no_init);
                auto b = detail::make_box(piece, A::extents, oe, sizeof(T));
                b.src_step = static_cast<std::ptrdiff_t>(piece[SplitDim]) * b.src_stride[SplitDim];
                b.dst_step = static_cast<std::ptrdiff_t>(piece[ConcatDim]) * b.dst_stride[ConcatDim];
                const detail::collective_desc d{"all_to_all",
                                                detail::operand_label<A>(),
                                                {SplitDim, ConcatDim, SplitCount},
                                                detail::all_to_all_attr_names,
                                                o.channel_id,
                                                mode,
                                                &o.replica_groups};
                ctx.transport_().exchange(ctx, d, g, a.data(), out.data(), b, false);
                return out;
            },
            x);
    }
}
// The tuple form: each operand exchanged with the same attributes, in tuple order.
template<std::int64_t SplitDim, std::int64_t ConcatDim, std::int64_t SplitCount, class... X>
requires((expression<X> && ...)) auto all_to_all(replica_context& ctx, std::tuple<X...> xs,
                                                 const collective_opts& o = {}) {
    return detail::apply(
        [&](auto&&... x) {
            return std::tuple{all_to_all<SplitDim, ConcatDim, SplitCount>(ctx, std::forward<decltype(x)>(x), o)...};
        },
        std::move(xs));
}

// CollectivePermute(operand, source_target_pairs, channel_id): each target gets its source's
// operand; a device that is no target gets zeros (a quantized type's zero points). Pairs name replicas (partitions when
// channel_id > 0), within the same partition (replica).
template<expression X>
auto collective_permute(replica_context& ctx, X&& x, const source_target_pairs_t& pairs, std::int64_t channel_id = 0) {
    return detail::traced<void>(
        "stablehlo.collective_permute", [&] { return detail::permute_attrs(pairs, channel_id); },
        [&] { return detail::collective_permute_impl<false>(ctx, std::forward<X>(x), pairs, channel_id); }, x);
}
// CollectivePermuteStart / CollectivePermuteDone.
template<expression X>
auto collective_permute_start(replica_context& ctx, X&& x, const source_target_pairs_t& pairs,
                              std::int64_t channel_id = 0) {
    return detail::traced<void>(
        "stablehlo.collective_permute", [&] { return detail::permute_attrs(pairs, channel_id); },
        [&] { return detail::collective_permute_impl<true>(ctx, std::forward<X>(x), pairs, channel_id); }, x);
}
template<class Out>
Out collective_permute_done(async_collective<Out>&& h) {
    return h.done();
}

namespace detail {
// Member `root` of this device's group to every member (root < 0: the first, StableHLO's
// has_dynamic_root = false).
template<expression X>
auto collective_broadcast_impl(replica_context& ctx, X&& x, std::int64_t root, const collective_opts& o) {
    using T = element_of<X>;
    using A = tensor_type_of<X>;
    const auto& a = as_array(std::forward<X>(x));
    if (o.use_global_device_ids)
        throw error("collective_broadcast", "use_global_device_ids is not an attribute of collective_broadcast");
    const auto mode = mode_of("collective_broadcast", o, false);
    const auto& g = group_of("collective_broadcast", ctx, mode, o, false, false);
    if (root >= 0 && g.me >= 0 && static_cast<std::size_t>(root) >= g.members.size())
        throw error("collective_broadcast", "root ", root, " is not a member index of a group of ", g.members.size());
    A out(no_init);
    const collective_desc d{"collective_broadcast", operand_label<A>(), {}, {}, o.channel_id, mode, &o.replica_groups};
    ctx.transport_().copy_from(ctx, d, g, root < 0 ? 0 : root, a.data(), out.data(), A::size() * sizeof(T), false);
    if (g.me < 0) fill_real_zero(out);
    return out;
}
} // namespace detail

// CollectiveBroadcast(operand, replica_groups, channel_id): each group's first member's operand
// to every member; a device in no group gets zeros (a quantized type's zero points).
template<expression X>
auto collective_broadcast(replica_context& ctx, X&& x, const collective_opts& o = {}) {
    return detail::traced<void>(
        "stablehlo.collective_broadcast", [&] { return detail::collective_attrs(o, false); },
        [&] { return detail::collective_broadcast_impl(ctx, std::forward<X>(x), -1, o); }, x);
}
// The same from member `root` of each group, a run-time value of this device (StableHLO 1.20's
// has_dynamic_root; devices that disagree each read the member they name). C6: 0 <= root < the
// group's size (xlet::error).
template<expression X>
auto collective_broadcast_from(replica_context& ctx, std::int64_t root, X&& x, const collective_opts& o = {}) {
    if (root < 0) throw error("collective_broadcast", "root ", root, " is negative");
    const tensor<std::int32_t, 1> r{static_cast<std::int32_t>(root)}; // the op's root operand, when exported
    return detail::traced<void>(
        "stablehlo.collective_broadcast",
        [&] {
            return trace::join_attrs({"has_dynamic_root", detail::collective_attrs(o, false)});
        },
        [&] { return detail::collective_broadcast_impl(ctx, std::forward<X>(x), root, o); }, std::tie(x, r));
}

// RaggedAllToAll(input, input_offsets, send_sizes, output, output_offsets, recv_sizes,
// replica_groups, channel_id): member k sends rows input[input_offsets[j][u] : +send_sizes[j][u]]
// to member j, written at output_offsets[j][u] of j's output (offsets as seen from the target);
// returns this device's output with the rows it received. Offsets and sizes are [group size] or
// [group size, updates] integer arrays. Run time: a sender's send_sizes must equal the receiver's
// recv_sizes, and every row range must lie in its array (xlet::error otherwise).
//   C1 the four offset/size arrays have one shape, of rank 1 or 2
//   C2 their element type is an integer type
//   C3 input and output have the same element type and the same dimensions after the first
template<expression I, expression IO, expression SS, expression O, expression OO, expression RS>
auto ragged_all_to_all(replica_context& ctx, I&& input, IO&& input_offsets, SS&& send_sizes, O&& output,
                       OO&& output_offsets, RS&& recv_sizes, const collective_opts& o = {}) {
    using In = tensor_type_of<I>;
    using Out = tensor_type_of<O>;
    using Off = tensor_type_of<IO>;
    constexpr bool c1 = Off::rank >= 1 && Off::rank <= 2 && same_extents(Off::extents, tensor_type_of<SS>::extents) &&
                        same_extents(Off::extents, tensor_type_of<OO>::extents) &&
                        same_extents(Off::extents, tensor_type_of<RS>::extents);
    constexpr bool c2 = (std::is_integral_v<detail::element_of<IO>> && std::is_integral_v<detail::element_of<SS>> &&
                         std::is_integral_v<detail::element_of<OO>> && std::is_integral_v<detail::element_of<RS>> &&
                         !std::is_same_v<detail::element_of<IO>, bool>);
    constexpr bool c3 =
        std::is_same_v<detail::element_of<I>, detail::element_of<O>> && In::rank >= 1 && In::rank == Out::rank && [] {
            for (std::size_t i = 1; i < In::rank; ++i)
                if (In::extents[i] != Out::extents[i]) return false;
            return true;
        }();
    static_assert(
        diag::got<c1, detail::shown_t<IO>, detail::shown_t<SS>, detail::shown_t<OO>, detail::shown_t<RS>>::value,
        "xlet::ragged_all_to_all [C1]: input_offsets, send_sizes, output_offsets and recv_sizes must have one "
        "shape, [group size] or [group size, updates]");
    static_assert(
        diag::got<c2, detail::shown_t<IO>, detail::shown_t<SS>, detail::shown_t<OO>, detail::shown_t<RS>>::value,
        "xlet::ragged_all_to_all [C2]: offsets and sizes must be integer arrays");
    static_assert(diag::got<c3, detail::shown_t<I>, detail::shown_t<O>>::value,
                  "xlet::ragged_all_to_all [C3]: input and output must have the same element type and the same "
                  "dimensions after the first");
    if constexpr (c1 && c2 && c3) {
        // Traced: the custom_call JAX writes (StableHLO has no op of its own), with its operand
        // order (input, output, then the four offset / size arrays).
        return trace::heavy(
            "stablehlo.custom_call",
            [&] {
                return "api_version = 4 : i32, backend_config = {replica_groups = " +
                       detail::int_rows_attr(o.replica_groups) +
                       (o.channel_id > 0 ? ", channel_id = " + std::to_string(o.channel_id) + " : i64" : "") +
                       "}, call_target_name = \"ragged_all_to_all\"";
            },
            [&] {
                using T = detail::element_of<I>;
                constexpr std::size_t G = Off::extents[0], U = Off::rank == 2 ? Off::extents[Off::rank - 1] : 1;
                Out res(std::forward<O>(output));
                const auto& in = detail::as_array(std::forward<I>(input));
                std::vector<std::int64_t> meta(4 * G * U);
                auto put = [&](std::size_t k, const auto& a) {
                    const auto& arr = detail::as_array(a);
                    for (std::size_t i = 0; i < G * U; ++i)
                        meta[k * G * U + i] = static_cast<std::int64_t>(arr.data()[i]);
                };
                put(0, input_offsets);
                put(1, send_sizes);
                put(2, output_offsets);
                put(3, recv_sizes);
                const auto mode = detail::mode_of("ragged_all_to_all", o, false);
                const auto& g = detail::group_of("ragged_all_to_all", ctx, mode, o, true, true);
                if (g.members.size() != G)
                    throw error("ragged_all_to_all", "the offset and size arrays have ", G,
                                " rows but the group of this device has ", g.members.size(), " members");
                const std::size_t row = In::size() / In::extents[0];
                const detail::ragged_meta m{
                    meta.data(), meta.data() + G * U, meta.data() + 2 * G * U, meta.data() + 3 * G * U,
                    U,           row * sizeof(T),     In::extents[0],          Out::extents[0]};
                const detail::collective_desc d{
                    "ragged_all_to_all",
                    detail::operand_label<In>(),
                    {static_cast<std::int64_t>(Out::extents[0]), static_cast<std::int64_t>(U)},
                    detail::ragged_attr_names,
                    o.channel_id,
                    mode,
                    &o.replica_groups};
                ctx.transport_().ragged_exchange(ctx, d, g, in.data(), res.data(), m, false);
                return res;
            },
            input, output, input_offsets, send_sizes, output_offsets, recv_sizes);
    }
}

} // namespace xlet
