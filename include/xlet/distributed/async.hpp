// Point to point (send / recv on a channel) and the generic async wrapper (async_start /
// async_update / async_done) for the replica pool.
//
//   auto s = send(ctx, x, /*channel_id=*/1, {{0, 1}});       // device 0 sends x to device 1
//   auto r = recv<f32<4>>(ctx, 1, {{0, 1}});                 // device 1 receives it
//   ... compute ...
//   send_done(std::move(s));  f32<4> y = recv_done(std::move(r));
//
// Pairs name devices (replica * partitions + partition; replica ids when there is one partition),
// as XLA's _xla_send_recv_source_target_pairs. A device that is no source sends nothing; a device
// that is no target receives zeros. Messages on one (channel, source, target) arrive in the order
// they were sent. The spec's order (Recv before Send completes, Send before SendDone, ...) holds for
// any program that does not wait for a transfer nobody will make; one that does (a ring of
// send_done before recv, a recv from a device that returned) gets an xlet::error naming who waits
// for what: every running device waiting is a deadlock the pool reports.
#pragma once
#include "../core/simd.hpp" // before TBB: see core/simd.hpp

#include <tbb/task_group.h>

#include <exception>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "../ops/control/token.hpp" // token (after a send completes)
#include "collectives.hpp"
#include "shared_memory.hpp" // XLET_POOL_THREADS

namespace xlet {

namespace detail {
// The peer of this device in `pairs` (as target when `as_source`, else as source), or -1.
template<class = void>
std::int64_t peer_of(const char* op, const replica_context& ctx, const source_target_pairs_t& pairs, bool as_source) {
    const std::int64_t D = static_cast<std::int64_t>(ctx.replica_count()) * ctx.partition_count();
    const std::int64_t self = ctx.device_id();
    std::int64_t peer = -1;
    std::vector<char> src(static_cast<std::size_t>(D), 0), dst(static_cast<std::size_t>(D), 0);
    for (const auto& [s, t] : pairs) {
        if (s < 0 || t < 0 || s >= D || t >= D)
            throw error(op, "source_target_pairs names (", s, ", ", t, "), outside the ", D, " devices");
        if (src[static_cast<std::size_t>(s)]++) throw error(op, "source ", s, " appears in two pairs");
        if (dst[static_cast<std::size_t>(t)]++) throw error(op, "target ", t, " appears in two pairs");
        if (as_source && s == self) peer = t;
        if (!as_source && t == self) peer = s;
    }
    return peer;
}
// to_stablehlo: stablehlo.send / stablehlo.recv (device to device, StableHLO 1.12's
// source_target_pairs), ordered with the other side effects by the recorder's token chain.
template<class = void>
std::string send_recv_attrs(std::int64_t channel_id, const source_target_pairs_t& pairs) {
    return "channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(channel_id) +
           ", type = 1>, is_host_transfer = false, " + permute_attrs(pairs, 0);
}
template<class X>
XLET_TRACE_COLD void trace_send(trace::recorder& r, const X& x, std::int64_t channel_id,
                                const source_target_pairs_t& pairs) {
    std::vector<int> ins;
    trace::values_of(r, x, ins);
    ins.push_back(r.token_in());
    r.token_out(r.emit("stablehlo.send", std::move(ins), {"!stablehlo.token"}, send_recv_attrs(channel_id, pairs)));
}
template<class Out>
XLET_TRACE_COLD int trace_recv(trace::recorder& r, std::int64_t channel_id, const source_target_pairs_t& pairs) {
    const int v = r.emit("stablehlo.recv", {r.token_in()}, {trace::type_of<Out>(), "!stablehlo.token"},
                         send_recv_attrs(channel_id, pairs));
    r.token_out(v + 1);
    return v;
}
} // namespace detail

// Send(operand, channel): starts the transfer to this device's target; send_done waits until the
// target has received it (until then x must stay alive and unmodified; an expression is kept).
template<expression X>
auto send(replica_context& ctx, X&& x, std::int64_t channel_id, const source_target_pairs_t& pairs) {
    trace::recorder* const r = trace::current();
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]]
            detail::trace_send(*r, x, channel_id, pairs);
    trace::pause_if paused(r);
    using A = tensor_type_of<X>;
    using T = detail::element_of<X>;
    return detail::run_collective<true, token, std::tuple<detail::held_t<X>>>(
        ctx,
        [&](auto& st) {
            const std::int64_t target = detail::peer_of("send", ctx, pairs, true);
            if (target < 0) return;
            st.p =
                ctx.transport_().send(ctx, channel_id, static_cast<std::uint32_t>(target), detail::operand_label<A>(),
                                      std::get<0>(st.extra).data(), A::size() * sizeof(T));
        },
        detail::as_array(std::forward<X>(x)));
}
template<class = void>
inline token send_done(async_collective<token>&& h) {
    return h.done();
}

// Recv(shape, channel): receives an Out from this device's source (zeros when it has none).
template<class Out>
auto recv(replica_context& ctx, std::int64_t channel_id, const source_target_pairs_t& pairs) {
    trace::recorder* const r = trace::current();
    int traced = -1;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]]
            traced = detail::trace_recv<Out>(*r, channel_id, pairs);
    trace::pause_if paused(r);
    using T = typename Out::value_type;
    return detail::run_collective<true, Out, std::tuple<>>(ctx, [&](auto& st) {
        st.traced = traced; // recv_done binds the value it returns to the recorded op's result
        const std::int64_t source = detail::peer_of("recv", ctx, pairs, false);
        if (source < 0) {
            detail::fill_real_zero(st.out); // zeros (a quantized type's zero points)
            return;
        }
        st.p = ctx.transport_().recv(ctx, channel_id, static_cast<std::uint32_t>(source), detail::operand_label<Out>(),
                                     st.out.data(), Out::size() * sizeof(T));
    });
}
template<class Out>
Out recv_done(async_collective<Out>&& h) {
    return h.done();
}

// AsyncStart / AsyncUpdate / AsyncDone over a local computation: f(args...) runs as a task beside
// the device's own work (a collective in flight, say) and async_done returns its result. The
// arguments are copied (pass std::cref to share); f must not call collectives (it has no context).
template<class R>
class async_computation;
template<class F, class... A>
auto async_start(F f, A... args);

template<class R>
class async_computation {
    template<class F, class... A>
    friend auto async_start(F f, A... args);
    struct state {
        // A oneTBB task; an OS thread when the pool's devices are threads (XLET_POOL_THREADS,
        // under the sanitizers, which cannot see oneTBB's synchronisation).
        tbb::task_group tasks;
        std::thread thread;
        std::exception_ptr error;
        std::optional<R> result;
        int traced = -1; // to_stablehlo: the async_start's future, which async_done reads
        void wait() {
            if constexpr (XLET_POOL_THREADS) {
                if (thread.joinable()) thread.join();
                if (error) std::rethrow_exception(std::exchange(error, nullptr));
            } else {
                tasks.wait(); // rethrows what f threw
            }
        }
        // A computation nobody collected (a dropped or overwritten handle) is waited for here.
        ~state() {
            try {
                wait();
            } catch (...) {
            }
        }
    };
    explicit async_computation(std::unique_ptr<state> s) : s_(std::move(s)) {}

public:
    async_computation(async_computation&&) noexcept = default;
    async_computation& operator=(async_computation&&) noexcept = default;
    R done() {
        if (!s_) throw error("async_done", "the computation was already collected");
        auto s = std::move(s_);
        s->wait();
        if constexpr (trace::compiled_in)
            if (s->traced >= 0)
                if (trace::recorder* r = trace::current()) [[unlikely]] {
                    std::vector<int> ins{s->traced}, regions;
                    trace::finish(
                        *r, "stablehlo.async_done", [] { return std::string(); }, ins, regions, *s->result);
                }
        return std::move(*s->result);
    }

private:
    std::unique_ptr<state> s_;
};

namespace detail {
// to_stablehlo: stablehlo.async_start with f's ops as its body. f runs here, on the recording
// thread (a task elsewhere would be out of the recorder's sight), on copies of the arguments bound
// to the block arguments; values it captures become operands too (the body is isolated from
// above); async_done reads the future.
template<class R, class F, class... A>
XLET_TRACE_COLD int trace_async_start(trace::recorder& r, const F& f, std::tuple<A...>& args,
                                      std::optional<R>& result) {
    if constexpr (!(trace::arrays_only<A> && ...) || !trace::arrays_only<R>) {
        throw error("to_stablehlo", "async_start: arguments and results must be tensors (or tuples of them)");
    } else {
        std::vector<int> ins = detail::apply([&](const auto&... a) { return trace::operand_ids(r, a...); }, args);
        const int g = r.open_region({trace::type_of<A>()...});
        int id = r.regions[static_cast<std::size_t>(g)].args.empty()
                     ? 0
                     : r.regions[static_cast<std::size_t>(g)].args.front();
        detail::apply([&](const auto&... a) { (trace::bind(r, a, id++), ...); }, args);
        result.emplace(detail::apply(f, std::as_const(args)));
        std::vector<int> results;
        trace::values_of(r, *result, results);
        r.close_region(std::move(results));
        for (int v : r.isolate(g))
            ins.push_back(v);
        std::vector<std::string> types;
        trace::result_types<R>(types);
        std::string future = "!stablehlo.future<";
        for (std::size_t k = 0; k < types.size(); ++k)
            future += (k ? ", " : "") + types[k];
        return r.emit("stablehlo.async_start", std::move(ins), {future + ">"}, {}, {g});
    }
}
} // namespace detail

template<class F, class... A>
auto async_start(F f, A... args) {
    using R = std::invoke_result_t<const F&, const A&...>;
    auto s = std::make_unique<typename async_computation<R>::state>();
    auto* st = s.get();
    if constexpr (trace::compiled_in)
        if (trace::recorder* r = trace::current()) [[unlikely]] {
            auto held = std::make_tuple(std::move(args)...);
            st->traced = detail::trace_async_start<R>(*r, f, held, st->result);
            return async_computation<R>(std::move(s));
        }
    auto job = [st, f = std::move(f), args = std::make_tuple(std::move(args)...)] {
        st->result.emplace(detail::apply(f, args));
    };
    if constexpr (XLET_POOL_THREADS) {
        st->thread = std::thread([st, job = std::move(job)] {
            try {
                job();
            } catch (...) {
                st->error = std::current_exception();
            }
        });
    } else {
        st->tasks.run(std::move(job));
    }
    return async_computation<R>(std::move(s));
}
// AsyncUpdate: the computation is still in flight; returns the handle (HLO threads it through).
template<class R>
async_computation<R> async_update(async_computation<R>&& h) {
    return std::move(h);
}
template<class R>
R async_done(async_computation<R>&& h) {
    return h.done();
}

} // namespace xlet
