// The MPI transport: the collectives' transport interface (transport.hpp) over MPI processes, each
// hosting a block of the program's devices (one, or several as oneTBB tasks: the hybrid mode).
//
// Every collective is built from nonblocking point-to-point messages between the devices of its
// group, so the MPI library's own reduction order never enters: all_reduce and reduce_scatter fold
// the members' inputs in group order exactly as the in-process pool does (small operands: every
// member sends its whole input to every other and each folds all of them; large ones: member k
// folds part k of everyone's input, then sends the result to all, a reduce-scatter and an
// all-gather), so the bits are those of replica_pool for any rank count and layout. Devices of one
// rank exchange through in-process mailboxes (one copy, from the sender's array into the
// receiver's), devices of different ranks through MPI_Isend / MPI_Irecv.
//
// Matching: tags carry the message kind, the channel and the two devices' local indices (and, for
// the second phase of a collective, its sequence number modulo 16), so messages of different
// channels, of second phases completed in another order than started, and of different device
// pairs never meet. Every collective message
// carries the sender's description (wire.hpp): a member that receives another collective than its
// own reports both devices and both descriptions. Run-level control (a device finished, a device
// threw) travels on a second communicator.
//
// Waiting is polling (MPI_Test), done by the waiting device itself when it has its thread, or by
// one progress thread of the rank when devices are oneTBB tasks (a waiting task suspends so its
// thread runs the rank's other devices). While waiting a device notices: a device that threw
// anywhere (cancelled_error naming it), a peer that returned without entering the collective it
// waits at (named), and the watchdog: a wait longer than the pool's limit fails every device with
// what this one waits for (a deadlock across processes is otherwise invisible to MPI).
#pragma once
#include "../../core/simd.hpp" // before TBB: see core/simd.hpp

// (the C API only: Open MPI's and MPICH's C++ bindings are deprecated and warn)
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../core/block_cache.hpp"
#include "../shared_memory.hpp"
#include "../transport.hpp"
#include "wire.hpp"

namespace xlet::detail::mpi {

using clock = std::chrono::steady_clock;

inline std::string error_string(int code) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(code, s, &n);
    return std::string(s, static_cast<std::size_t>(n));
}
inline void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw error("mpi_pool", what, " failed: ", error_string(rc));
}

// A send or receive between two devices of one rank, waiting for its other half.
struct local_msg {
    const char* src = nullptr;
    char* dst = nullptr;
    std::size_t send_bytes = 0, recv_bytes = 0;
    bool matched = false;
};
struct local_box {
    std::deque<std::shared_ptr<local_msg>> sends, recvs;
};

enum class check_kind : std::uint8_t { none, collective, p2p };

// One message of a collective or transfer.
struct xfer {
    bool recv = false, done = false, remote = false;
    check_kind check = check_kind::none;
    std::uint32_t peer = 0;
    int tag = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    std::shared_ptr<local_msg> local;
    const char* buf = nullptr; // received: where the message starts (its header first if checked)
    std::size_t bytes = 0;     // posted size
    std::size_t count = 0;     // received size
    bool truncated = false;
    int stage = 0; // the step of the op after which it is waited for
};

// A collective or transfer of one device: its messages, and what to do when they are all done. A
// synchronous collective reuses its device's previous op (vectors and small buffers kept): a small
// all_reduce then allocates nothing.
struct op final : pending {
    const char* name = "";
    std::uint32_t dev = 0;
    std::uint32_t tag_dev = 0; // whose local index its messages carry (a rank's agent: the group's first local member)
    std::int64_t channel = 0;
    std::uint64_t seq = 0;
    bool is_p2p = false, finished = false;
    bool in_meet = false, agent = false; // a member of a rank-level all_reduce (transport::meet_)
    std::tuple<std::int64_t, std::uint64_t, std::uint32_t> meet_key{};
    int stage = 0; // steps run so far
    wire_desc mine;
    std::vector<xfer> xfers;
    // The common last step, without a closure: out = fold of ptrs (all_reduce, small operands).
    std::vector<const char*> ptrs;
    char* fold_out = nullptr;
    std::size_t fold_n = 0, fold_eb = 0;
    combiner fold_f{};
    std::function<void(op&)> next; // any other step

    op() = default;
    op(const op&) = delete;
    op& operator=(const op&) = delete;
    ~op() override {
        for (auto& b : blocks)
            free_block(b.p, b.cap, align);
    }
    // Uninitialised message space (from xlet's block cache), valid until the op is reset.
    char* new_buf(std::size_t n) {
        n = std::max<std::size_t>(n, 64);
        if (used == blocks.size()) blocks.push_back({nullptr, 0});
        auto& b = blocks[used++];
        if (b.cap < n) {
            free_block(b.p, b.cap, align);
            b.p = nullptr;
            b.p = static_cast<char*>(allocate_block(n, align));
            b.cap = n;
        }
        return b.p;
    }
    // Ready for the device's next collective; keeps buffers up to 1 MiB.
    void reset() {
        xfers.clear();
        ptrs.clear();
        fold_out = nullptr;
        next = nullptr;
        finished = is_p2p = in_meet = agent = false;
        stage = 0;
        used = 0;
        for (auto& b : blocks)
            if (b.cap > (std::size_t{1} << 20)) {
                free_block(b.p, b.cap, align);
                b = {nullptr, 0};
            }
    }

private:
    static constexpr std::size_t align = 64;
    struct block {
        char* p;
        std::size_t cap;
    };
    std::vector<block> blocks;
    std::size_t used = 0;
};

// The members of one rank at one rank-level all_reduce (transport::rank_all_reduce).
struct rendezvous {
    wire_desc desc;
    std::uint32_t first_device = 0;
    std::vector<std::uint32_t> members;        // this rank's members
    std::vector<std::uint32_t> members_by_pos; // by group position: the device if on this rank
    std::vector<const char*> in;               // by group position (this rank's members only)
    std::vector<char*> out;
    std::size_t expected = 0, arrived = 0, left = 0;
    bool started = false, done = false;
    std::string error;
};

class transport final : public xlet::transport {
public:
    // `data` and `ctrl` are this run's communicators (the pool duplicates them per run); devices
    // [first[r], first[r + 1]) live on rank r.
    transport(MPI_Comm data, MPI_Comm ctrl, std::uint32_t R, std::uint32_t P, std::vector<std::uint32_t> first,
              bool tasks, std::chrono::milliseconds watchdog)
        : data_(data), ctrl_(ctrl), R_(R), P_(P), D_(R * P), first_(std::move(first)), tasks_(tasks),
          watchdog_(watchdog), finished_(D_, 0), entered_(D_) {
        int r = 0, n = 0;
        MPI_Comm_rank(data_, &r);
        MPI_Comm_size(data_, &n);
        rank_ = static_cast<std::uint32_t>(r);
        owner_.resize(D_);
        for (std::uint32_t q = 0; q < static_cast<std::uint32_t>(n); ++q) {
            for (std::uint32_t d = first_[q]; d < first_[q + 1]; ++d)
                owner_[d] = q;
            L_ = std::max(L_, first_[q + 1] - first_[q]);
        }
        L_ = std::max<std::uint32_t>(L_, 1);
        void* ub = nullptr;
        int flag = 0;
        MPI_Comm_get_attr(data_, MPI_TAG_UB, &ub, &flag);
        tag_ub_ = flag ? *static_cast<int*>(ub) : 32767;
        spare_.resize(L_);
        if (tasks_) progress_ = std::thread([this] { progress_loop(); });
    }
    ~transport() override {
        if (progress_.joinable()) {
            {
                std::lock_guard lk(m_);
                stop_ = true;
            }
            cv_.notify_all();
            progress_.join();
        }
    }

    std::uint32_t replica_count() const override { return R_; }
    std::uint32_t partition_count() const override { return P_; }

    // ---- the collectives -------------------------------------------------------------------
    pending_ptr all_reduce(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in_,
                           void* out_, std::size_t n, std::size_t eb, const combiner& f, bool async) override {
        auto o = begin(ctx, d, async);
        if (g.me >= 0) {
            const auto* in = static_cast<const char*>(in_);
            auto* out = static_cast<char*>(out_);
            const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me), bytes = n * eb;
            if (G > 1 && L_ > 1 && shares_a_rank(g))
                return rank_all_reduce(ctx, std::move(o), g, in, out, n, eb, f, async);
            std::lock_guard lk(m_);
            if (G == 1) {
                if (out != in) std::memcpy(out, in, bytes);
            } else if (bytes <= small_bytes) {
                // Everyone's whole input to everyone; each member folds all of them in group order.
                o->ptrs.resize(G);
                for (std::size_t k = 0; k < G; ++k) {
                    if (k == me) {
                        o->ptrs[k] = in;
                        continue;
                    }
                    char* b = o->new_buf(hdr + bytes);
                    o->ptrs[k] = b + hdr;
                    post_recv(*o, g.members[k], kind::coll, b, hdr + bytes, check_kind::collective);
                }
                const char* s = packed(*o, in, bytes);
                for (std::size_t k = 0; k < G; ++k)
                    if (k != me) post_send(*o, g.members[k], kind::coll, s, hdr + bytes);
                o->fold_out = out;
                o->fold_n = n;
                o->fold_eb = eb;
                o->fold_f = f;
            } else {
                // Reduce-scatter then all-gather: member k folds elements [n k / G, n (k + 1) / G).
                auto lo = [n, G](std::size_t k) { return n * k / G; };
                const std::size_t mine = lo(me + 1) - lo(me);
                char* parts = o->new_buf(G * mine * eb);
                auto inputs = std::make_shared<std::vector<const char*>>(G);
                for (std::size_t k = 0; k < G; ++k) {
                    (*inputs)[k] = k == me ? in + lo(me) * eb : parts + k * mine * eb;
                    if (k == me) continue;
                    post_recv(*o, g.members[k], kind::coll, o->new_buf(hdr), hdr, check_kind::collective);
                    post_recv(*o, g.members[k], kind::coll, parts + k * mine * eb, mine * eb);
                }
                // (posted now, so they land in `out` directly; waited for after the fold)
                for (std::size_t k = 0; k < G; ++k)
                    if (k != me)
                        post_recv(*o, g.members[k], kind::coll2, out + lo(k) * eb, (lo(k + 1) - lo(k)) * eb,
                                  check_kind::none, 1);
                const char* h = header(*o);
                for (std::size_t k = 0; k < G; ++k) {
                    if (k == me) continue;
                    post_send(*o, g.members[k], kind::coll, h, hdr);
                    post_send(*o, g.members[k], kind::coll, in + lo(k) * eb, (lo(k + 1) - lo(k)) * eb);
                }
                std::vector<std::uint32_t> members = g.members;
                o->next = [this, inputs, members, me, out, at = lo(me) * eb, mine, eb, f](op& o) {
                    fold(out + at, *inputs, mine, f, eb);
                    std::lock_guard lk(m_);
                    for (std::size_t k = 0; k < members.size(); ++k)
                        if (k != me) post_send(o, members[k], kind::coll2, out + at, mine * eb);
                };
            }
        }
        return end(ctx, std::move(o), async);
    }

    pending_ptr exchange(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in_,
                         void* out_, const box& b, bool async) override {
        auto o = begin(ctx, d, async);
        if (g.me >= 0) {
            const auto* in = static_cast<const char*>(in_);
            auto* out = static_cast<char*>(out_);
            const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me);
            const std::size_t bytes = b.elements() * b.elem_bytes;
            const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
            auto src0 = [&](std::size_t k) { return static_cast<std::ptrdiff_t>(k) * b.src_step; };
            auto dst0 = [&](std::size_t k) { return static_cast<std::ptrdiff_t>(k) * b.dst_step; };
            std::unique_lock lk(m_);
            // Receive piece `me` of every member: straight into `out` when it is contiguous there.
            auto landing = std::make_shared<std::vector<const char*>>(G, nullptr);
            for (std::size_t k = 0; k < G; ++k) {
                if (k == me) continue;
                if (bytes <= small_bytes) {
                    char* m = o->new_buf(hdr + bytes);
                    post_recv(*o, g.members[k], kind::coll, m, hdr + bytes, check_kind::collective);
                    (*landing)[k] = m + hdr;
                } else {
                    post_recv(*o, g.members[k], kind::coll, o->new_buf(hdr), hdr, check_kind::collective);
                    char* m = contiguous(b, false) ? out + dst0(k) * eb : o->new_buf(bytes);
                    post_recv(*o, g.members[k], kind::coll, m, bytes);
                    if (!contiguous(b, false)) (*landing)[k] = m;
                }
            }
            send_pieces(*o, g, b, in);
            lk.unlock();
            // This member's own piece while the others' travel.
            for_each_run(b, src0(me), dst0(me), [&](std::ptrdiff_t so, std::ptrdiff_t dof, std::size_t len) {
                std::memcpy(out + dof * eb, in + so * eb, len * b.elem_bytes);
            });
            o->next = [landing, out, b, dst = b.dst_step](op&) {
                for (std::size_t k = 0; k < landing->size(); ++k)
                    if ((*landing)[k]) unpack(b, (*landing)[k], out, static_cast<std::ptrdiff_t>(k) * dst);
            };
        }
        return end(ctx, std::move(o), async);
    }

    pending_ptr reduce_scatter(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in_,
                               void* out_, const box& b, const combiner& f, bool async) override {
        auto o = begin(ctx, d, async);
        if (g.me >= 0) {
            const auto* in = static_cast<const char*>(in_);
            auto* out = static_cast<char*>(out_);
            const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me);
            const std::size_t bytes = b.elements() * b.elem_bytes;
            const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
            auto src0 = [&](std::size_t k) { return static_cast<std::ptrdiff_t>(k) * b.src_step; };
            std::lock_guard lk(m_);
            // Every member's piece `me`, packed in the box's order; this member's own read in place
            // when contiguous.
            auto pieces = std::make_shared<std::vector<const char*>>(G, nullptr);
            for (std::size_t k = 0; k < G; ++k) {
                if (k == me) {
                    if (contiguous(b, true)) {
                        (*pieces)[k] = in + src0(me) * eb;
                    } else {
                        char* p = o->new_buf(bytes);
                        pack(b, in, src0(me), p);
                        (*pieces)[k] = p;
                    }
                    continue;
                }
                if (bytes <= small_bytes) {
                    char* m = o->new_buf(hdr + bytes);
                    post_recv(*o, g.members[k], kind::coll, m, hdr + bytes, check_kind::collective);
                    (*pieces)[k] = m + hdr;
                } else {
                    post_recv(*o, g.members[k], kind::coll, o->new_buf(hdr), hdr, check_kind::collective);
                    char* m = o->new_buf(bytes);
                    post_recv(*o, g.members[k], kind::coll, m, bytes);
                    (*pieces)[k] = m;
                }
            }
            send_pieces(*o, g, b, in);
            o->next = [pieces, out, b, f, at = src0(me)](op&) {
                // Fold run by run of the output (the pieces are packed in the same order).
                std::size_t pos = 0;
                const std::size_t eb = b.elem_bytes;
                std::vector<const char*> at_pos(pieces->size());
                for_each_run(b, at, 0, [&](std::ptrdiff_t, std::ptrdiff_t dof, std::size_t len) {
                    for (std::size_t k = 0; k < at_pos.size(); ++k)
                        at_pos[k] = (*pieces)[k] + pos * eb;
                    fold(out + dof * static_cast<std::ptrdiff_t>(eb), at_pos, len, f, eb);
                    pos += len;
                });
            };
        }
        return end(ctx, std::move(o), async);
    }

    pending_ptr copy_from(replica_context& ctx, const collective_desc& d, const group_view& g, std::ptrdiff_t source,
                          const void* in_, void* out_, std::size_t bytes, bool async) override {
        auto o = begin(ctx, d, async);
        if (g.me >= 0) {
            const auto* in = static_cast<const char*>(in_);
            auto* out = static_cast<char*>(out_);
            const auto me = g.me;
            // Whom this member sends to: the pairs' targets (permute) or every member (broadcast root).
            std::vector<std::size_t> targets;
            if (std::string_view(d.op) == "collective_permute") {
                if (d.groups)
                    for (const auto& p : *d.groups)
                        if (p.size() == 2 && p[0] == me && p[1] != me)
                            targets.push_back(static_cast<std::size_t>(p[1]));
            } else if (source == me) {
                for (std::size_t k = 0; k < g.members.size(); ++k)
                    if (static_cast<std::ptrdiff_t>(k) != me) targets.push_back(k);
            }
            std::lock_guard lk(m_);
            if (source < 0) {
                std::memset(out, 0, bytes);
            } else if (source == me) {
                if (out != in) std::memcpy(out, in, bytes);
            } else {
                const std::uint32_t from = g.members[static_cast<std::size_t>(source)];
                if (bytes <= small_bytes) {
                    char* m = o->new_buf(hdr + bytes);
                    post_recv(*o, from, kind::coll, m, hdr + bytes, check_kind::collective);
                    o->next = [m, out, bytes](op&) { std::memcpy(out, m + hdr, bytes); };
                } else {
                    post_recv(*o, from, kind::coll, o->new_buf(hdr), hdr, check_kind::collective);
                    post_recv(*o, from, kind::coll, out, bytes);
                }
            }
            if (!targets.empty()) {
                const char* s = nullptr;
                if (bytes <= small_bytes) s = packed(*o, in, bytes);
                for (auto k : targets) {
                    if (s) {
                        post_send(*o, g.members[k], kind::coll, s, hdr + bytes);
                    } else {
                        post_send(*o, g.members[k], kind::coll, header(*o), hdr);
                        post_send(*o, g.members[k], kind::coll, in, bytes);
                    }
                }
            }
        }
        return end(ctx, std::move(o), async);
    }

    pending_ptr ragged_exchange(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in_,
                                void* out_, const ragged_meta& m, bool async) override {
        auto o = begin(ctx, d, async);
        if (g.me >= 0) {
            const auto* in = static_cast<const char*>(in_);
            auto* out = static_cast<char*>(out_);
            const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me), U = m.updates;
            // What this member sends to member j: per update its row count and output offset, then
            // the rows. Checked here for this member's input; the receiver checks its side.
            auto message = [&](std::size_t j, char* p) {
                std::memcpy(p, &o->mine, hdr);
                auto* meta = reinterpret_cast<std::int64_t*>(p + hdr);
                char* rows = p + hdr + U * 16;
                for (std::size_t u = 0; u < U; ++u) {
                    const std::size_t at = j * U + u;
                    const std::int64_t io = m.input_offsets[at], n = m.send_sizes[at];
                    meta[2 * u] = n;
                    meta[2 * u + 1] = m.output_offsets[at];
                    std::memcpy(rows, in + static_cast<std::size_t>(io) * m.row_bytes,
                                static_cast<std::size_t>(n) * m.row_bytes);
                    rows += static_cast<std::size_t>(n) * m.row_bytes;
                }
            };
            auto sent_bytes = [&](std::size_t j) {
                std::size_t rows = 0;
                for (std::size_t u = 0; u < U; ++u)
                    rows += static_cast<std::size_t>(m.send_sizes[j * U + u]);
                return hdr + U * 16 + rows * m.row_bytes;
            };
            for (std::size_t j = 0; j < G; ++j)
                for (std::size_t u = 0; u < U; ++u) {
                    const std::int64_t io = m.input_offsets[j * U + u], n = m.send_sizes[j * U + u];
                    if (n < 0 || io < 0 || static_cast<std::size_t>(io + n) > m.in_rows)
                        throw error("ragged_all_to_all", "member ", me, " sends rows [", io, ", ", io + n, ") of ",
                                    m.in_rows, " to member ", j, ": out of range");
                }
            auto expected = [&](std::size_t k) {
                std::size_t rows = 0;
                for (std::size_t u = 0; u < U; ++u)
                    rows += static_cast<std::size_t>(std::max<std::int64_t>(0, m.recv_sizes[k * U + u]));
                return hdr + U * 16 + rows * m.row_bytes;
            };
            auto got = std::make_shared<std::vector<const char*>>(G, nullptr);
            auto sizes = std::make_shared<std::vector<std::size_t>>(G, 0);
            std::vector<std::int64_t> recv_sizes(m.recv_sizes, m.recv_sizes + G * U);
            std::lock_guard lk(m_);
            for (std::size_t k = 0; k < G; ++k) {
                const std::size_t e = k == me ? sent_bytes(me) : expected(k);
                char* p = o->new_buf(e);
                (*got)[k] = p;
                (*sizes)[k] = e;
                if (k == me)
                    message(me, p);
                else
                    post_recv(*o, g.members[k], kind::coll, p, e, check_kind::collective);
            }
            for (std::size_t j = 0; j < G; ++j) {
                if (j == me) continue;
                char* p = o->new_buf(sent_bytes(j));
                message(j, p);
                post_send(*o, g.members[j], kind::coll, p, sent_bytes(j));
            }
            o->next = [got, sizes, recv_sizes, out, me, U, row = m.row_bytes, out_rows = m.out_rows](op& o) {
                for (std::size_t k = 0; k < got->size(); ++k) {
                    const char* p = (*got)[k];
                    const std::size_t count = k == me ? (*sizes)[k] : received(o, p);
                    const auto* meta = reinterpret_cast<const std::int64_t*>(p + hdr);
                    const char* rows = p + hdr + U * 16;
                    for (std::size_t u = 0; u < U; ++u) {
                        const std::int64_t n = count >= hdr + U * 16 ? meta[2 * u] : -1, oo = meta[2 * u + 1];
                        const std::int64_t expect = recv_sizes[k * U + u];
                        if (n != expect)
                            throw error("ragged_all_to_all", "member ", k, " sends ", n, " rows (update ", u,
                                        ") to member ", me, ", whose recv_sizes says ", expect);
                        if (oo < 0 || static_cast<std::size_t>(oo + n) > out_rows)
                            throw error("ragged_all_to_all", "member ", k, " sends rows to rows [", oo, ", ", oo + n,
                                        ") of member ", me, "'s ", out_rows, ": out of range");
                        std::memcpy(out + static_cast<std::size_t>(oo) * row, rows, static_cast<std::size_t>(n) * row);
                        rows += static_cast<std::size_t>(n) * row;
                    }
                }
            };
        }
        return end(ctx, std::move(o), async);
    }

    // ---- all_reduce with several members on one rank -----------------------------------------
    // The members of a rank meet in shared memory; the last to arrive (the rank's agent) exchanges
    // with the other ranks' agents for all of them, so a collective costs messages per pair of
    // ranks, not per pair of devices. Order is kept: small operands, every agent receives every
    // member's input (packed per rank, group order) and folds all of them in group order; large
    // ones, the agent of the q-th rank (in order of first appearance in the group) folds part q of
    // every member's input in group order, then the parts are exchanged. The result goes to the
    // rank's first member and is copied to the others.
    pending_ptr rank_all_reduce(replica_context& ctx, std::unique_ptr<op> o, const group_view& g, const char* in,
                                char* out, std::size_t n, std::size_t eb, const combiner& f, bool async) {
        const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me), bytes = n * eb;
        std::vector<std::uint32_t> ranks; // in order of first appearance in the group
        std::vector<std::size_t> first_of(first_.size(), G), count_of_rank(first_.size(), 0);
        for (std::size_t k = 0; k < G; ++k) {
            const std::uint32_t q = owner_[g.members[k]];
            if (count_of_rank[q]++ == 0) {
                ranks.push_back(q);
                first_of[q] = k;
            }
        }
        std::unique_lock lk(m_);
        o->in_meet = true;
        o->meet_key = {o->channel, o->seq, g.members[0]};
        rendezvous& r = meets_[o->meet_key];
        if (r.expected == 0) {
            r.expected = count_of_rank[rank_];
            r.desc = o->mine;
            r.first_device = o->dev;
            r.in.assign(G, nullptr);
            r.out.assign(G, nullptr);
            r.members_by_pos.assign(G, D_);
            for (std::size_t k = 0; k < G; ++k)
                if (owner_[g.members[k]] == rank_) {
                    r.members.push_back(g.members[k]);
                    r.members_by_pos[k] = g.members[k];
                }
        } else if (r.error.empty() && !r.desc.same_collective(o->mine)) {
            r.error = "devices disagree at " + where(o->channel, o->seq) + ": " + device_name(r.first_device, P_) +
                      " is at " + r.desc.text() + " but " + device_name(o->dev, P_) + " reached " + o->mine.text();
        }
        // A member of this rank that returned before this collective never comes; one that went
        // past it (a later collective on this channel) was in another group here: both are misuse
        // the waiting members would otherwise only learn from the watchdog.
        for (auto m : r.members)
            if (r.error.empty() && finished_[m] && entered_on(m, o->channel) <= o->seq)
                r.error = device_name(m, P_) + " returned after " + std::to_string(entered_on(m, o->channel)) +
                          " collectives" + on_channel(o->channel) + "; " + device_name(o->dev, P_) +
                          " waits for it at " + where(o->channel, o->seq) + ", " + o->mine.text();
        for (auto& [key, other] : meets_) {
            const std::int64_t c = std::get<0>(key); // (not a structured binding: lambdas below use it)
            const std::uint64_t n = std::get<1>(key);
            if (&other == &r || c != o->channel || other.started || !other.error.empty()) continue;
            auto disagree = [&](std::uint64_t at, std::uint32_t waiting, const wire_desc& w, std::uint32_t ahead,
                                const wire_desc& a) {
                return "devices disagree at " + where(c, at) + ": " + device_name(waiting, P_) + " is at " + w.text() +
                       " but " + device_name(ahead, P_) + " reached " + a.text() + " (its collective #" +
                       std::to_string(a.seq) + ")";
            };
            if (n < o->seq) { // an earlier one here still waits for this device, which went past it
                for (std::size_t k = 0; k < other.in.size(); ++k)
                    if (other.members_by_pos[k] == o->dev && !other.in[k])
                        other.error = disagree(n, other.first_device, other.desc, o->dev, o->mine);
            } else { // a later one holds a member this one waits for: it went past this one
                for (std::size_t k = 0; k < other.in.size(); ++k) {
                    const std::uint32_t x = other.members_by_pos[k];
                    if (!other.in[k] || std::find(r.members.begin(), r.members.end(), x) == r.members.end()) continue;
                    other.error = disagree(o->seq, o->dev, o->mine, x, other.desc);
                }
            }
            if (!other.error.empty()) {
                if (r.error.empty()) r.error = other.error;
            }
        }
        if (!r.error.empty()) {
            const std::string why = r.error;
            if (r.arrived == 0) meets_.erase(o->meet_key);
            throw error(o->name, why);
        }
        r.in[me] = in;
        r.out[me] = out;
        ++r.arrived;
        if (r.arrived < r.expected) {
            lk.unlock();
            return end(ctx, std::move(o), async);
        }
        // The agent: this rank's messages carry the local index of its first member.
        o->agent = true;
        r.started = true;
        o->tag_dev = g.members[first_of[rank_]];
        auto peer = [&](std::uint32_t q) { return g.members[first_of[q]]; };
        std::size_t qi = 0;
        while (ranks[qi] != rank_)
            ++qi;
        const std::size_t NR = ranks.size();
        char* result = r.out[first_of[rank_]];
        o->ptrs.assign(G, nullptr);
        if (bytes <= small_bytes) {
            // [header | inputs of the rank's members in group order], to every other agent.
            for (auto q : ranks) {
                if (q == rank_) continue;
                char* b = o->new_buf(hdr + count_of_rank[q] * bytes);
                post_recv(*o, peer(q), kind::rank1, b, hdr + count_of_rank[q] * bytes, check_kind::collective);
                std::size_t i = 0;
                for (std::size_t k = 0; k < G; ++k)
                    if (owner_[g.members[k]] == q) o->ptrs[k] = b + hdr + bytes * i++;
            }
            char* mine = o->new_buf(hdr + count_of_rank[rank_] * bytes);
            std::memcpy(mine, &o->mine, hdr);
            std::size_t i = 0;
            for (std::size_t k = 0; k < G; ++k)
                if (owner_[g.members[k]] == rank_) {
                    o->ptrs[k] = r.in[k];
                    std::memcpy(mine + hdr + bytes * i++, r.in[k], bytes);
                }
            for (auto q : ranks)
                if (q != rank_) post_send(*o, peer(q), kind::rank1, mine, hdr + count_of_rank[rank_] * bytes);
            o->fold_out = result;
            o->fold_n = n;
            o->fold_eb = eb;
            o->fold_f = f;
            o->next = [this, key = o->meet_key, bytes](op&) { copy_result(key, bytes); };
        } else {
            auto lo = [n, NR](std::size_t q) { return n * q / NR; };
            const std::size_t part = lo(qi + 1) - lo(qi);
            char* parts = o->new_buf(G * part * eb);
            for (std::size_t k = 0; k < G; ++k)
                o->ptrs[k] = owner_[g.members[k]] == rank_ ? r.in[k] + lo(qi) * eb : parts + k * part * eb;
            for (std::size_t j = 0; j < NR; ++j) {
                const auto q = ranks[j];
                if (q == rank_) continue;
                post_recv(*o, peer(q), kind::rank1, o->new_buf(hdr), hdr, check_kind::collective);
                for (std::size_t k = 0; k < G; ++k)
                    if (owner_[g.members[k]] == q)
                        post_recv(*o, peer(q), kind::rank1, parts + k * part * eb, part * eb);
                post_recv(*o, peer(q), kind::rank2, result + lo(j) * eb, (lo(j + 1) - lo(j)) * eb, check_kind::none, 1);
            }
            const char* h = header(*o);
            for (std::size_t j = 0; j < NR; ++j) {
                const auto q = ranks[j];
                if (q == rank_) continue;
                post_send(*o, peer(q), kind::rank1, h, hdr);
                for (std::size_t k = 0; k < G; ++k)
                    if (owner_[g.members[k]] == rank_)
                        post_send(*o, peer(q), kind::rank1, r.in[k] + lo(j) * eb, (lo(j + 1) - lo(j)) * eb);
            }
            std::vector<std::uint32_t> others;
            for (auto q : ranks)
                if (q != rank_) others.push_back(peer(q));
            o->next = [this, others, at = lo(qi) * eb, part, eb, f, result, key = o->meet_key, bytes](op& o) {
                fold(result + at, o.ptrs, part, f, eb);
                {
                    std::lock_guard lk(m_);
                    for (auto p : others)
                        post_send(o, p, kind::rank2, result + at, part * eb);
                }
                o.next = [this, key, bytes](op&) { copy_result(key, bytes); };
            };
        }
        lk.unlock();
        return end(ctx, std::move(o), async);
    }
    // Whether some rank hosts two members of the group (every rank decides the same).
    bool shares_a_rank(const group_view& g) const {
        for (std::size_t i = 1; i < g.members.size(); ++i)
            if (owner_[g.members[i]] == owner_[g.members[i - 1]])
                return true; // (blocks: members of a rank are often adjacent)
        std::vector<char> seen(first_.size(), 0);
        for (auto m : g.members)
            if (seen[owner_[m]]++) return true;
        return false;
    }
    // The agent's last step: the result from the rank's first member to the others.
    void copy_result(const std::tuple<std::int64_t, std::uint64_t, std::uint32_t>& key, std::size_t bytes) {
        std::vector<std::pair<char*, const char*>> copies;
        {
            std::lock_guard lk(m_);
            const rendezvous& r = meets_.at(key);
            char* first = nullptr;
            for (auto* p : r.out)
                if (p) {
                    if (!first)
                        first = p;
                    else
                        copies.emplace_back(p, first);
                }
        }
        for (auto [dst, src] : copies)
            std::memcpy(dst, src, bytes);
    }
    // A member of a rank-level all_reduce: the agent drives the messages; the others wait until it
    // is done (their arrays are read until then), or until it failed or cannot start.
    void drive_member(replica_context& ctx, op& o) {
        if (o.agent) {
            std::string why;
            try {
                drive(ctx, o);
            } catch (const std::exception& e) {
                why = e.what();
                finish_meet(o, why);
                throw;
            }
            finish_meet(o, why);
            return;
        }
        const auto start = clock::now();
        std::unique_lock lk(m_);
        rendezvous& r = meets_.at(o.meet_key);
        for (int spins = 0;; ++spins) {
            if (spins % 32 == 31) poll_ctrl();
            if (r.done) break;
            if (!r.started && (!failure_.empty() || !r.error.empty())) break;
            if (!r.started && clock::now() - start > watchdog_) {
                r.error = "watchdog: " + device_name(o.dev, P_) + " has waited " + seconds(clock::now() - start) +
                          " at " + where(o.channel, o.seq) + ", " + o.mine.text() + ", for this rank's other members";
                break;
            }
            if (tasks_ && XLET_POOL_THREADS == 0)
                idle_suspended(lk, o, &r);
            else
                idle_inline(lk, spins);
        }
        const bool failed_before_start = !r.started;
        const bool cancelled = failed_before_start && !failure_.empty(); // (the root cause is elsewhere)
        const std::string why = cancelled ? failure_ : r.error;
        leave_meet(r, o.meet_key, failed_before_start);
        lk.unlock();
        if (cancelled) throw cancelled_error(o.name, why);
        if (!why.empty()) throw error(o.name, why);
    }
    void finish_meet(op& o, const std::string& why) {
        std::lock_guard lk(m_);
        rendezvous& r = meets_.at(o.meet_key);
        if (!why.empty() && r.error.empty()) r.error = why;
        r.done = true;
        leave_meet(r, o.meet_key, false);
    }
    void leave_meet(rendezvous& r, const std::tuple<std::int64_t, std::uint64_t, std::uint32_t>& key, bool unarrive) {
        if (unarrive) --r.arrived;
        if (++r.left == r.expected || (unarrive && r.arrived == 0)) meets_.erase(key);
    }

    // ---- send / recv -----------------------------------------------------------------------
    pending_ptr send(replica_context& ctx, std::int64_t channel, std::uint32_t target, std::string_view operand,
                     const void* in, std::size_t bytes) override {
        auto o = p2p_op(ctx, channel, operand, "send");
        std::lock_guard lk(m_);
        throw_if_failed("send");
        if (bytes <= small_bytes) {
            post_send(*o, target, kind::p2p, packed(*o, static_cast<const char*>(in), bytes), hdr + bytes, true);
        } else {
            post_send(*o, target, kind::p2p, header(*o), hdr);
            post_send(*o, target, kind::p2p, static_cast<const char*>(in), bytes, true);
        }
        return o;
    }
    pending_ptr recv(replica_context& ctx, std::int64_t channel, std::uint32_t source, std::string_view operand,
                     void* out, std::size_t bytes) override {
        auto o = p2p_op(ctx, channel, operand, "recv");
        std::lock_guard lk(m_);
        throw_if_failed("recv");
        if (bytes <= small_bytes) {
            char* m = o->new_buf(hdr + bytes);
            post_recv(*o, source, kind::p2p, m, hdr + bytes, check_kind::p2p);
            o->next = [m, out, bytes](op&) { std::memcpy(out, m + hdr, bytes); };
        } else {
            post_recv(*o, source, kind::p2p, o->new_buf(hdr), hdr, check_kind::p2p);
            post_recv(*o, source, kind::p2p, static_cast<char*>(out), bytes);
        }
        return o;
    }

    void complete(replica_context& ctx, pending& p) override {
        auto& o = static_cast<op&>(p);
        if (o.finished) return;
        check_may_wait();
        o.finished = true;
        if (o.in_meet)
            drive_member(ctx, o);
        else
            drive(ctx, o);
    }

    // ---- the pool's side -------------------------------------------------------------------
    // A local device returned (or threw) having entered `entered[c]` collectives on each channel c.
    void finished(std::uint32_t dev, const std::map<std::int64_t, std::uint64_t>& entered) {
        std::vector<std::int64_t> msg{1, dev};
        for (const auto& [c, n] : entered) {
            msg.push_back(c);
            msg.push_back(static_cast<std::int64_t>(n));
        }
        std::lock_guard lk(m_);
        record_finished(dev, entered);
        // A rank-level all_reduce that waits for this device, which never came.
        for (auto& [key, r] : meets_) {
            const auto [c, n, leader] = key;
            if (!failure_.empty() || r.started || !r.error.empty() || entered_on(dev, c) > n) continue;
            if (std::find(r.members.begin(), r.members.end(), dev) == r.members.end()) continue;
            r.error = device_name(dev, P_) + " returned after " + std::to_string(entered_on(dev, c)) + " collectives" +
                      on_channel(c) + " while this rank's other members wait for it at " + where(c, n) + ", " +
                      r.desc.text();
        }
        broadcast_ctrl(reinterpret_cast<const char*>(msg.data()), msg.size() * 8);
    }
    // A local device threw `what` (not a cancellation): every device of every rank stops waiting.
    void cancel(std::uint32_t dev, const std::string& what) {
        std::vector<char> msg(16 + what.size());
        const std::int64_t head[2] = {2, dev};
        std::memcpy(msg.data(), head, 16);
        std::memcpy(msg.data() + 16, what.data(), what.size());
        std::lock_guard lk(m_);
        record_cancel(dev, what);
        broadcast_ctrl(msg.data(), msg.size());
    }
    // After this rank's devices returned: waits until every device of every rank has, then
    // completes the control messages. Throws when the watchdog expires first.
    void drain() {
        const auto start = clock::now();
        std::unique_lock lk(m_);
        for (int spins = 0; finished_count_ < D_; ++spins) {
            poll_ctrl();
            if (finished_count_ >= D_) break;
            if (clock::now() - start > watchdog_) {
                std::string who;
                for (std::uint32_t d = 0; d < D_ && who.size() < 200; ++d)
                    if (!finished_[d]) who += (who.empty() ? "" : ", ") + device_name(d, P_);
                throw error("mpi_pool", "watchdog: after ", seconds(clock::now() - start),
                            " this rank's devices have returned but ", who, " have not");
            }
            idle_inline(lk, spins);
        }
        for (auto& r : ctrl_sends_)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        ctrl_sends_.clear();
    }
    // The lowest device that threw (not a cancellation), with its message; -1 when none did.
    std::pair<std::int64_t, std::string> root_cause() const {
        std::lock_guard lk(m_);
        if (roots_.empty()) return {-1, {}};
        return {roots_.begin()->first, roots_.begin()->second};
    }
    // After every device returned: all entered the same number of collectives on each channel.
    std::string count_mismatch() const {
        std::lock_guard lk(m_);
        for (std::uint32_t i = 1; i < D_; ++i)
            for (const auto* mp : {&entered_[0], &entered_[i]})
                for (const auto& [c, n] : *mp)
                    if (entered_on(0, c) != entered_on(i, c))
                        return device_name(0, P_) + " entered " + std::to_string(entered_on(0, c)) + " collectives" +
                               on_channel(c) + " but " + device_name(i, P_) + " entered " +
                               std::to_string(entered_on(i, c));
        return {};
    }

private:
    static constexpr std::size_t hdr = sizeof(wire_desc);
    // Up to this many payload bytes travel in one message with their header (copied once on each
    // side); above it the header goes first and the payload straight from and into the arrays.
    static constexpr std::size_t small_bytes = 16 * 1024;

    static std::string seconds(clock::duration t) {
        return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(t).count() / 1000.0).substr(0, 5) +
               " s";
    }
    static std::string on_channel(std::int64_t c) { return c > 0 ? " on channel " + std::to_string(c) : std::string(); }
    static std::string where(std::int64_t c, std::uint64_t n) {
        return "collective #" + std::to_string(n) + on_channel(c);
    }

    // A device that is a fiber may wait only in its own flow (fiber.hpp): checked before anything
    // of its is posted.
    void check_may_wait() const {
        if constexpr (!XLET_POOL_THREADS) {
            if (tasks_) fiber_check_wait();
        }
    }

    // ---- building a collective -------------------------------------------------------------
    std::unique_ptr<op> begin(replica_context& ctx, const collective_desc& d, bool async) {
        check_may_wait();
        std::unique_ptr<op> o;
        if (!async) o = std::move(spare_[local_index(ctx.device_id())]); // (a device's own slot)
        if (!o) o = std::make_unique<op>();
        o->name = d.op;
        o->dev = o->tag_dev = ctx.device_id();
        o->channel = d.channel_id > 0 ? d.channel_id : 0;
        o->seq = ctx.next_sequence(o->channel);
        o->mine = make_wire(d, o->seq);
        if (failed_.load(std::memory_order_relaxed)) {
            std::lock_guard lk(m_);
            throw_if_failed(d.op);
        }
        return o;
    }
    std::unique_ptr<op> p2p_op(replica_context& ctx, std::int64_t channel, std::string_view operand, const char* name) {
        check_may_wait();
        auto o = std::make_unique<op>();
        o->name = name;
        o->is_p2p = true;
        o->dev = o->tag_dev = ctx.device_id();
        o->channel = channel;
        collective_desc d;
        d.op = "send";
        d.operand = operand;
        d.channel_id = channel;
        o->mine = make_wire(d, 0);
        return o;
    }
    pending_ptr end(replica_context& ctx, std::unique_ptr<op> o, bool async) {
        if (async) return o;
        o->finished = true;
        if (o->in_meet)
            drive_member(ctx, *o);
        else
            drive(ctx, *o);
        o->reset();
        spare_[local_index(o->dev)] = std::move(o);
        return nullptr;
    }
    // The header of this collective, once (sent to every member).
    static const char* header(op& o) {
        char* h = o.new_buf(hdr);
        std::memcpy(h, &o.mine, hdr);
        return h;
    }
    // [header | bytes of in], once (sent to every target).
    static const char* packed(op& o, const char* in, std::size_t bytes) {
        char* m = o.new_buf(hdr + bytes);
        std::memcpy(m, &o.mine, hdr);
        std::memcpy(m + hdr, in, bytes);
        return m;
    }
    // Piece k of this member's input (box b at k * src_step) to every other member k, with the
    // header: in one message when small, else straight from `in` when contiguous there (m_ held).
    void send_pieces(op& o, const group_view& g, const box& b, const char* in) {
        const std::size_t bytes = b.elements() * b.elem_bytes;
        for (std::size_t k = 0; k < g.members.size(); ++k) {
            if (static_cast<std::ptrdiff_t>(k) == g.me) continue;
            const std::ptrdiff_t src0 = static_cast<std::ptrdiff_t>(k) * b.src_step;
            if (bytes <= small_bytes) {
                char* m = o.new_buf(hdr + bytes);
                std::memcpy(m, &o.mine, hdr);
                pack(b, in, src0, m + hdr);
                post_send(o, g.members[k], kind::coll, m, hdr + bytes);
                continue;
            }
            post_send(o, g.members[k], kind::coll, header(o), hdr);
            const char* m = in + src0 * static_cast<std::ptrdiff_t>(b.elem_bytes);
            if (!contiguous(b, true)) {
                char* p = o.new_buf(bytes);
                pack(b, in, src0, p);
                m = p;
            }
            post_send(o, g.members[k], kind::coll, m, bytes);
        }
    }
    // Whether a box's source (or destination) elements are one contiguous run.
    static bool contiguous(const box& b, bool src) {
        std::ptrdiff_t expect = 1;
        for (std::size_t i = b.rank; i-- > 0;) {
            if (b.size[i] == 1) continue;
            if ((src ? b.src_stride[i] : b.dst_stride[i]) != expect) return false;
            expect *= static_cast<std::ptrdiff_t>(b.size[i]);
        }
        return true;
    }
    static void pack(const box& b, const char* in, std::ptrdiff_t src0, char* p) {
        const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
        for_each_run(b, src0, 0, [&](std::ptrdiff_t so, std::ptrdiff_t, std::size_t len) {
            std::memcpy(p, in + so * eb, len * b.elem_bytes);
            p += len * b.elem_bytes;
        });
    }
    static void unpack(const box& b, const char* p, char* out, std::ptrdiff_t dst0) {
        const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
        for_each_run(b, 0, dst0, [&](std::ptrdiff_t, std::ptrdiff_t dof, std::size_t len) {
            std::memcpy(out + dof * eb, p, len * b.elem_bytes);
            p += len * b.elem_bytes;
        });
    }
    // out = f(...f(f(in_0, in_1), in_2)..., in_{G-1}) over n elements, a cache-sized block at a time.
    static void fold(char* out, const std::vector<const char*>& in, std::size_t n, const combiner& f, std::size_t eb) {
        const std::size_t G = in.size();
        const std::size_t block = std::max<std::size_t>(1, 16384 / eb);
        for (std::size_t b = 0; b < n; b += block) {
            const std::size_t len = std::min(block, n - b);
            char* acc = out + b * eb;
            if (G == 1) {
                std::memcpy(acc, in[0] + b * eb, len * eb);
                continue;
            }
            f(acc, in[0] + b * eb, in[1] + b * eb, len);
            for (std::size_t k = 2; k < G; ++k)
                f(acc, acc, in[k] + b * eb, len);
        }
    }
    // How many bytes arrived in the receive that starts at p.
    static std::size_t received(const op& o, const char* p) {
        for (const auto& x : o.xfers)
            if (x.recv && x.buf == p) return x.count;
        return 0;
    }

    // ---- messages (m_ held) ----------------------------------------------------------------
    std::uint32_t local_index(std::uint32_t dev) const { return dev - first_[owner_[dev]]; }
    int tag_of(const op& o, int k, std::uint32_t src, std::uint32_t dst) const {
        // First-phase messages are posted in collective order on both sides, so MPI's order per
        // (source, tag) matches them, and a device that is one collective ahead meets the other's
        // header (and is reported) instead of waiting on a tag nobody sends. Second phases are posted
        // when each device completes, in any order: they carry the sequence number.
        const std::int64_t slot =
            k == kind::coll2 || k == kind::rank2 ? static_cast<std::int64_t>(o.seq % seq_slots) : 0;
        const std::int64_t t =
            ((((o.channel * kinds + k) * seq_slots + slot) * L_ + local_index(src)) * L_) + local_index(dst);
        if (t > tag_ub_ || t < 0)
            throw error(o.name, "channel_id ", o.channel, " is beyond what this MPI's tags (at most ", tag_ub_,
                        ") can carry with ", L_, " devices per rank");
        return static_cast<int>(t);
    }
    static int count_of(std::size_t bytes, const char* name) {
        if (bytes > static_cast<std::size_t>(INT_MAX))
            throw error(name, "a message of ", bytes, " bytes: the MPI transport sends < 2 GiB");
        return static_cast<int>(bytes);
    }
    void post_send(op& o, std::uint32_t to, int k, const char* p, std::size_t bytes, bool synchronous = false) {
        xfer x;
        x.stage = o.stage;
        x.peer = to;
        x.tag = tag_of(o, k, o.tag_dev, to);
        x.bytes = bytes;
        if (owner_[to] != rank_) {
            x.remote = true;
            auto* buf = const_cast<char*>(p); // (MPI-3 takes const void*; kept for older headers)
            const int rc = synchronous ? MPI_Issend(buf, count_of(bytes, o.name), MPI_BYTE,
                                                    static_cast<int>(owner_[to]), x.tag, data_, &x.req)
                                       : MPI_Isend(buf, count_of(bytes, o.name), MPI_BYTE, static_cast<int>(owner_[to]),
                                                   x.tag, data_, &x.req);
            check(rc, "MPI_Isend");
        } else {
            auto& bx = boxes_[{x.tag, o.tag_dev, to}];
            if (!bx.recvs.empty()) {
                x.local = bx.recvs.front();
                bx.recvs.pop_front();
                deliver(*x.local, p, bytes);
            } else {
                x.local = std::make_shared<local_msg>();
                x.local->src = p;
                x.local->send_bytes = bytes;
                bx.sends.push_back(x.local);
            }
        }
        o.xfers.push_back(std::move(x));
    }
    void post_recv(op& o, std::uint32_t from, int k, char* p, std::size_t bytes, check_kind c = check_kind::none,
                   int stage = 0) {
        xfer x;
        x.stage = o.stage + stage;
        x.recv = true;
        x.check = c;
        x.peer = from;
        x.tag = tag_of(o, k, from, o.tag_dev);
        x.buf = p;
        x.bytes = bytes;
        if (owner_[from] != rank_) {
            x.remote = true;
            check(MPI_Irecv(p, count_of(bytes, o.name), MPI_BYTE, static_cast<int>(owner_[from]), x.tag, data_, &x.req),
                  "MPI_Irecv");
        } else {
            auto& bx = boxes_[{x.tag, from, o.tag_dev}];
            if (!bx.sends.empty()) {
                x.local = bx.sends.front();
                bx.sends.pop_front();
                x.local->dst = p;
                x.local->recv_bytes = bytes;
                deliver(*x.local, x.local->src, x.local->send_bytes);
            } else {
                x.local = std::make_shared<local_msg>();
                x.local->dst = p;
                x.local->recv_bytes = bytes;
                bx.recvs.push_back(x.local);
            }
        }
        o.xfers.push_back(std::move(x));
    }
    void deliver(local_msg& m, const char* src, std::size_t bytes) {
        m.src = src;
        m.send_bytes = bytes;
        std::memcpy(m.dst, src, std::min(bytes, m.recv_bytes));
        m.matched = true;
    }
    // Whether x has completed (records what arrived).
    bool test(xfer& x) {
        if (x.done) return true;
        if (x.remote) {
            int flag = 0;
            MPI_Status st;
            const int rc = MPI_Test(&x.req, &flag, &st);
            if (rc != MPI_SUCCESS && !flag) flag = 1; // (an error completes the request)
            if (!flag) return false;
            if (x.recv) {
                int n = 0;
                MPI_Get_count(&st, MPI_BYTE, &n);
                x.count = static_cast<std::size_t>(std::max(n, 0));
                x.truncated = rc != MPI_SUCCESS;
                if (x.truncated) x.count = x.bytes;
            } else if (rc != MPI_SUCCESS) {
                throw error("mpi_pool", "MPI_Isend failed: ", error_string(rc));
            }
            x.done = true;
            return true;
        }
        if (!x.local->matched) return false;
        if (x.recv) {
            x.count = std::min(x.local->send_bytes, x.bytes);
            x.truncated = x.local->send_bytes > x.bytes;
        }
        x.done = true;
        return true;
    }
    // Whether every message of the op's current step has completed.
    bool test_all(op& o) {
        bool all = true;
        for (auto& x : o.xfers)
            if (x.stage <= o.stage) all = test(x) && all;
        return all;
    }
    // Abandons what is still posted (the op is failing): nothing writes into or reads from its
    // arrays afterwards.
    void abandon(op& o) {
        for (auto& x : o.xfers) {
            if (x.done) continue;
            if (x.remote) {
                if (x.recv) {
                    MPI_Cancel(&x.req);
                    MPI_Wait(&x.req, MPI_STATUS_IGNORE);
                } else {
                    MPI_Request_free(&x.req);
                }
            } else if (!x.local->matched) {
                auto it = boxes_.find({x.tag, x.recv ? x.peer : o.tag_dev, x.recv ? o.tag_dev : x.peer});
                if (it != boxes_.end()) {
                    auto& q = x.recv ? it->second.recvs : it->second.sends;
                    q.erase(std::remove(q.begin(), q.end(), x.local), q.end());
                }
            }
            x.done = true;
        }
    }

    // ---- waiting ---------------------------------------------------------------------------
    // Runs an op to its end: waits for its messages, checks what arrived, runs its next step.
    void drive(replica_context&, op& o) {
        for (;;) {
            wait(o);
            verify(o);
            if (o.fold_out) {
                fold(o.fold_out, o.ptrs, o.fold_n, o.fold_f, o.fold_eb);
                o.fold_out = nullptr;
            }
            if (!o.next && std::none_of(o.xfers.begin(), o.xfers.end(), [](const xfer& x) { return !x.done; })) return;
            if (!o.next) {
                ++o.stage;
                continue;
            }
            auto step = std::move(o.next);
            o.next = nullptr;
            ++o.stage;
            step(o);
        }
    }
    void wait(op& o) {
        std::unique_lock lk(m_);
        if (test_all(o)) return;
        // A thread spinning checks the control messages, returned peers and the clock every 32
        // spins (an Iprobe or a clock read costs as much as the message test, and a small
        // collective completes within them); a suspended task at every resumption.
        const bool suspends = tasks_ && XLET_POOL_THREADS == 0;
        const int every = suspends ? 1 : 32;
        const clock::time_point start = clock::now();
        for (int spins = 1;; ++spins) {
            const bool look = spins % every == 0;
            if (look) poll_ctrl();
            if (test_all(o)) return;
            if (!failure_.empty()) {
                abandon(o);
                throw_if_failed(o.name);
            }
            if (look) {
                if (auto why = stuck(o, start); !why.empty()) {
                    abandon(o);
                    throw error(o.name, why);
                }
            }
            if (suspends)
                idle_suspended(lk, o);
            else
                idle_inline(lk, spins);
        }
    }
    // Why o cannot complete, or "": a peer it waits for returned first, or the watchdog expired.
    std::string stuck(const op& o, clock::time_point start) const {
        for (const auto& x : o.xfers) {
            if (x.done || !finished_[x.peer]) continue;
            if (o.is_p2p)
                return "deadlock: " + device_name(x.peer, P_) + " returned, but " + device_name(o.dev, P_) +
                       (x.recv ? " waits to receive from it" : " waits for it to receive") + " on channel " +
                       std::to_string(o.channel);
            if (entered_on(x.peer, o.channel) <= o.seq)
                return device_name(x.peer, P_) + " returned after " + std::to_string(entered_on(x.peer, o.channel)) +
                       " collectives" + on_channel(o.channel) + "; " + device_name(o.dev, P_) + " waits for it at " +
                       where(o.channel, o.seq) + ", " + o.mine.text();
        }
        if (clock::now() - start > watchdog_) {
            std::string peers;
            std::size_t shown = 0;
            for (const auto& x : o.xfers)
                if (!x.done && shown++ < 8) peers += (peers.empty() ? "" : ", ") + device_name(x.peer, P_);
            return "watchdog: " + device_name(o.dev, P_) + " has waited " + seconds(clock::now() - start) +
                   (o.is_p2p ? std::string(" in ") + o.name + " on channel " + std::to_string(o.channel)
                             : " at " + where(o.channel, o.seq) + ", " + o.mine.text()) +
                   ", for " + peers;
        }
        return {};
    }
    void verify(const op& o) const {
        for (const auto& x : o.xfers) {
            if (!x.recv || !x.done || x.check == check_kind::none) continue;
            wire_desc w;
            if (x.count < hdr) {
                throw error(o.name, device_name(x.peer, P_), " sent ", x.count, " bytes where ", device_name(o.dev, P_),
                            " expects a message of ", x.bytes, " at ", where(o.channel, o.seq), ", ", o.mine.text());
            }
            std::memcpy(&w, x.buf, hdr);
            if (x.check == check_kind::p2p) {
                if (std::strncmp(w.operand, o.mine.operand, sizeof w.operand) != 0 || x.truncated)
                    throw error("recv", device_name(x.peer, P_), " sent ", w.operand, " on channel ", o.channel,
                                " but ", device_name(o.dev, P_), " receives ", o.mine.operand);
                continue;
            }
            // (ragged_all_to_all's sizes are data: its own step names a size that differs)
            const bool ragged = std::strcmp(o.name, "ragged_all_to_all") == 0;
            if (!w.same_collective(o.mine) || (x.truncated && !ragged))
                throw error(o.name, "devices disagree at ", where(o.channel, o.seq), ": ", device_name(x.peer, P_),
                            " is at ", w.text(),
                            (w.seq != o.seq ? " (its collective #" + std::to_string(w.seq) + ")" : ""), " but ",
                            device_name(o.dev, P_), " reached ", o.mine.text());
        }
    }
    // A device with its own thread: spin briefly, then yield, then sleep (many ranks on few cores).
    // (The first spins keep the lock: with one device per rank nobody else takes it, and a small
    // collective completes within them.)
    void idle_inline(std::unique_lock<std::mutex>& lk, int spins) {
        if (spins < 1024 && !(spins % 64 == 63)) return;
        lk.unlock();
        if (spins < 1024) {
            // (let the rank's other device threads in)
        } else if (spins < 20000) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        lk.lock();
    }
    // A device that is a oneTBB task: suspends; the progress thread resumes it when its messages
    // completed, something failed, or every 20 ms (to check for returned peers and the watchdog).
    void idle_suspended(std::unique_lock<std::mutex>& lk, op& o, const rendezvous* r = nullptr) {
        lk.unlock();
        fiber_suspend([&](fiber* sp) {
            std::lock_guard g(m_);
            waiters_.push_back({sp, &o, r, clock::now()});
            cv_.notify_one();
        });
        lk.lock();
    }
    void progress_loop() {
        std::unique_lock lk(m_);
        int spins = 0;
        while (!stop_) {
            if (waiters_.empty()) {
                cv_.wait(lk, [&] { return stop_ || !waiters_.empty(); });
                spins = 0;
                continue;
            }
            poll_ctrl();
            const auto now = clock::now();
            for (std::size_t i = 0; i < waiters_.size();) {
                auto& w = waiters_[i];
                const bool ready = w.r ? w.r->done || (!w.r->started && !w.r->error.empty()) : test_all(*w.o);
                if (!failure_.empty() || ready || now - w.since > std::chrono::milliseconds(20)) {
                    fiber_resume(w.sp);
                    waiters_[i] = waiters_.back();
                    waiters_.pop_back();
                } else {
                    ++i;
                }
            }
            idle_inline(lk, spins++);
        }
    }

    // ---- control messages (m_ held) --------------------------------------------------------
    void broadcast_ctrl(const char* p, std::size_t bytes) {
        int n = 0;
        MPI_Comm_size(ctrl_, &n);
        auto msg = std::make_shared<std::vector<char>>(p, p + bytes);
        ctrl_bufs_.push_back(msg);
        for (int q = 0; q < n; ++q) {
            if (static_cast<std::uint32_t>(q) == rank_) continue;
            MPI_Request r;
            check(MPI_Isend(msg->data(), static_cast<int>(bytes), MPI_BYTE, q, 0, ctrl_, &r), "MPI_Isend");
            ctrl_sends_.push_back(r);
        }
    }
    void poll_ctrl() {
        for (;;) {
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctrl_, &flag, &st);
            if (!flag) return;
            int n = 0;
            MPI_Get_count(&st, MPI_BYTE, &n);
            std::vector<std::int64_t> b((static_cast<std::size_t>(n) + 7) / 8 + 1, 0);
            MPI_Recv(b.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, ctrl_, MPI_STATUS_IGNORE);
            const auto dev = static_cast<std::uint32_t>(b[1]);
            if (b[0] == 1) {
                std::map<std::int64_t, std::uint64_t> entered;
                for (std::size_t i = 2; i + 1 < static_cast<std::size_t>(n) / 8 + 1; i += 2)
                    entered[b[i]] = static_cast<std::uint64_t>(b[i + 1]);
                record_finished(dev, entered);
            } else {
                record_cancel(
                    dev, std::string(reinterpret_cast<const char*>(b.data()) + 16, static_cast<std::size_t>(n) - 16));
            }
        }
    }
    void record_finished(std::uint32_t dev, const std::map<std::int64_t, std::uint64_t>& entered) {
        if (finished_[dev]) return;
        finished_[dev] = 1;
        entered_[dev] = entered;
        ++finished_count_;
    }
    void record_cancel(std::uint32_t dev, const std::string& what) {
        roots_.emplace(dev, what);
        if (failure_.empty()) failure_ = "cancelled: " + device_name(dev, P_) + " threw: " + what;
        failed_.store(true, std::memory_order_relaxed);
    }
    void throw_if_failed(const char* op) const {
        if (!failure_.empty()) throw cancelled_error(op, failure_);
    }
    std::uint64_t entered_on(std::uint32_t dev, std::int64_t channel) const {
        auto it = entered_[dev].find(channel);
        return it == entered_[dev].end() ? 0 : it->second;
    }

    struct waiter {
        fiber* sp;
        op* o;
        const rendezvous* r; // a member waiting for its rank's agent
        clock::time_point since;
    };

    MPI_Comm data_, ctrl_;
    std::uint32_t R_, P_, D_;
    std::vector<std::uint32_t> first_, owner_;
    std::uint32_t rank_ = 0, L_ = 1;
    std::int64_t tag_ub_ = 32767;
    bool tasks_;
    std::chrono::milliseconds watchdog_;
    mutable std::mutex m_;
    std::condition_variable cv_;
    std::thread progress_;
    bool stop_ = false;
    std::vector<waiter> waiters_;
    std::vector<std::unique_ptr<op>> spare_; // by local device: its last synchronous op, for reuse
    std::map<std::tuple<std::int64_t, std::uint64_t, std::uint32_t>, rendezvous> meets_; // (channel, n, leader)
    std::map<std::tuple<int, std::uint32_t, std::uint32_t>, local_box> boxes_;           // (tag, source, target)
    std::vector<char> finished_;
    std::vector<std::map<std::int64_t, std::uint64_t>> entered_;
    std::uint32_t finished_count_ = 0;
    std::map<std::int64_t, std::string> roots_; // devices that threw, by id
    std::string failure_;
    std::atomic<bool> failed_{false}; // failure_ is set (read without the lock)
    std::vector<MPI_Request> ctrl_sends_;
    std::vector<std::shared_ptr<std::vector<char>>> ctrl_bufs_;
};

} // namespace xlet::detail::mpi
