/*
 * The lowered all_to_all_v under the execution model of SEMANTICS.md, for Spin.
 *
 * This is exactly the program
 *     ccl-gen --all-to-all-v P,B | ccl-opt - -p 'builtin.module(ccl-pipeline{lower-collectives=true})'
 * (with -DLATE=1: ccl-lower-all-to-all-v{late-snapshot=true} in place of the default lowering):
 * per rank, the host of @main runs CALLS rounds of
 *     func.call @stage            (1 block: restages this rank's send_counts and send rows)
 *     func.call @__ccl_all_to_all_v_p<P>_b<B>   (B blocks: Barrier A, snapshot, push, Barrier B, reset)
 * with the markers ccl-insert-comm-fence places, under the same memory model as ccl-sim:
 * private non-coherent caches, in-flight write units, atomic signals, fork/join launches and
 * vector clocks. A data race is an assertion violation; a deadlock is an invalid end state.
 *
 *     spin -a -DP=2 -DB=2 all_to_all_v.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * bench/promela/README.md says how each part maps to the spec, and which steps are grouped.
 */

#ifndef P
#define P 2                     /* ranks */
#endif
#ifndef B
#define B 1                     /* launch width of the collective's kernel */
#endif
#ifndef MR
#define MR 1                    /* recv rows per peer (ccl-gen: 1), one element a row */
#endif
#ifndef CALLS
#define CALLS 2                 /* consecutive collectives (ccl-gen: 2) */
#endif
#ifndef LATE
#define LATE 0                  /* 1: the old order, the snapshot after Barrier B */
#endif

/* Lanes per peer (the lane mapping of ccl-admit-launch-width): K = B / P when B >= P, else 0. */
#if B >= P
#define K (B / P)
#define FIRST_OWNED(blk) ((blk) / K)
#define LANE(blk) ((blk) % K)
#define OWNED_STEP P            /* one peer a block */
#define LANES K
#else
#define K 0
#define FIRST_OWNED(blk) (blk)  /* peers blk, blk + B, ... < P, each at lane 0 */
#define LANE(blk) 0
#define OWNED_STEP B
#define LANES 1
#endif

/* ---------------------------------------------------------------------------------------
 * Threads. ccl-sim's threads are the host of each rank and the block slots of each rank;
 * the clocks are indexed by thread. Host r is thread r, block slot s (0 .. B-1) of rank r
 * is thread P + r*B + s; the cache and the in-flight queue belong to the slot, and survive
 * from one launch to the next (the @stage kernel runs on slot 0, as block 0 of the
 * collective does).
 * ------------------------------------------------------------------------------------- */
#define T (P * (1 + B))
#define NSLOT (P * B)

/* ---------------------------------------------------------------------------------------
 * Memory: every element of every buffer the program touches, on every rank (windows are
 * symmetric, so a peer's copy is the same buffer on the peer). What a location holds is
 * the identity of the write that produced it: its version, the count of writes issued to
 * the element (0 = the zero fill). Values follow from identities: the only value that
 * steers control flow is a send count, and version v of rank r's send_counts[q] holds
 * what @stage of round v-1 wrote, (v - 1 + r + q) mod (MR + 1) (ccl-gen's staging).
 * ------------------------------------------------------------------------------------- */
#define SC(r, q)    ((r) * P + (q))                               /* send_counts[q] of rank r */
#define SEND(r, i)  (P * P + (r) * P * MR + (i))                  /* send[i] of rank r */
#define RECV(r, i)  (P * P + P * P * MR + (r) * P * MR + (i))     /* recv[i] of rank r */
#define RC(r, q)    (P * P + 2 * P * P * MR + (r) * P + (q))      /* recv_counts[q] of rank r (plain) */
#define NLOC (2 * P * P + 2 * P * P * MR)
#define SC_LO 0
#define SC_HI (P * P)
#define SEND_LO (P * P)
#define SEND_HI (P * P + P * P * MR)
#define SC_VALUE(r, q, v) ((v) == 0 -> 0 : (((v) - 1 + (r) + (q)) % (MR + 1)))

byte mem[NLOC];             /* the version each element holds in memory */

/* The shadow of ccl-sim's race detection, per element: the last write issued (its
 * version, thread and that thread's epoch) and each thread's latest read since then
 * (its epoch, 0 = none). Accesses are checked when they are issued. */
byte w_version[NLOC];
byte w_thread[NLOC];
byte w_epoch[NLOC];
byte r_epoch[NLOC * T];

/* In flight: per block slot and element, the write on its way to memory,
 * (unit tag << 6) | version, 0 = none. A unit (the writes of one cacheinvalid, or of one
 * put) has a tag 1..3 in its slot; units[slot] has bit tag-1 set while it is in flight.
 * in_flight_to and dirty_lines count, per element, the writes in flight toward it and the
 * caches holding a dirty line of it (ccl-sim's "quiet location" test reads them). */
byte inflight[NSLOT * NLOC];
byte units[NSLOT];
byte in_flight_to[NLOC];
byte dirty_lines[NLOC];

/* Signals: signal[p, blk] of rank r is cell (r*P + p)*B + blk, in memory, atomic, never
 * cached, with the vector clock its notifies released into it. */
#define CELL(r, p, blk) (((r) * P + (p)) * B + (blk))
#define NCELL (P * P * B)
byte sig[NCELL];
byte sig_clock[NCELL * T];

/* Launches: the kernel each slot runs (0 = idle), the host's clock at the fork, the join
 * of the clocks of the blocks that have returned, and how many have. */
#define STAGE 1
#define A2AV 2
byte go[NSLOT];
byte fork_clock[P * T];
byte join_clock[P * T];
byte finished[P];

#define MAX(a, b) ((a) > (b) -> (a) : (b))

/* The host of each rank runs @main: CALLS rounds of launching @stage (1 block) and the
 * collective's kernel (B blocks), each launch a fork (the blocks acquire the host's clock,
 * the host ticks) and a join (the host acquires every block's clock). */
active [P] proctype Host()
{
#define r _pid
    byte clk[T];
    byte launched;          /* launches so far: odd ones are @stage, even ones the collective */
    byte width;
    byte j;
#define FORK(kind, w) \
    for (j : 0 .. T - 1) { fork_clock[r * T + j] = clk[j] }; \
    width = w; \
    for (j : 0 .. (w) - 1) { go[r * B + j] = kind }; \
    clk[r]++

    d_step { clk[r] = 1; launched = 1; FORK(STAGE, 1) };
    do
    :: d_step {
           width != 0 && finished[r] == width ->
           for (j : 0 .. T - 1) { clk[j] = MAX(clk[j], join_clock[r * T + j]); join_clock[r * T + j] = 0 };
           finished[r] = 0;
           launched++;
           if
           :: launched > 2 * CALLS -> width = 0
           :: launched <= 2 * CALLS && (launched & 1) -> FORK(STAGE, 1)
           :: else -> FORK(A2AV, B)
           fi
       }
    :: width == 0 -> break
    od
#undef r
}

/* ---------------------------------------------------------------------------------------
 * Block slots. Each runs the kernel it is launched with as a list of steps (pc); a Spin
 * transition is one ccl-sim step: the op the block rests at, then every op after it that
 * nobody else can observe, up to the next op that somebody can (see README.md).
 * ------------------------------------------------------------------------------------- */
#define OP_IDLE        0
/* @__ccl_all_to_all_v_p<P>_b<B> */
#define OP_PRO_INV     1    /* ccl.cacheinvalid   (insert, Phase B prologue) */
#define OP_PRO_FENCE   2    /* ccl.fence          (insert, Phase B prologue) */
#define OP_A_NOTIFY    3    /* barrier-a.notify: notify atomic_add +1, signal[me, blk] of peer i */
#define OP_A_WAIT      4    /* barrier-a.wait: wait ge 1 on signal[i, blk] */
#define OP_A_INV       5    /* ccl.cacheinvalid after the wait loop (insert rule 5) */
#define OP_SNAP_LOAD   6    /* snapshot: remote_load send_counts[me] of peer q */
#define OP_SNAP_WRITE  7    /* snapshot: tensor_write recv_counts[q] (plain: no marker) */
#define OP_PUSH_READ   8    /* push: read send_counts[q] */
#define OP_PUT         9    /* push: put send[q*MR + lo .. hi) into peer q's recv[me*MR + lo ..] */
#define OP_PUT_FENCE   10   /* ccl.fence after the put (insert rule 2) */
#define OP_B_NOTIFY    11   /* barrier-b.notify */
#define OP_B_WAIT      12   /* barrier-b.wait: wait ge 2 */
#define OP_B_INV       13   /* ccl.cacheinvalid after the wait loop (insert rule 5) */
#define OP_RESET       14   /* reset: notify atomic_add -2 on this rank's signal[i, blk] */
#define OP_RETURN      15
/* @stage */
#define OP_S_PRO_INV   16   /* ccl.cacheinvalid   (insert, Phase B prologue) */
#define OP_S_PRO_FENCE 17   /* ccl.fence          (insert, Phase B prologue) */
#define OP_S_SC_WRITE  18   /* tensor_write send_counts[q] */
#define OP_S_SC_INV    19   /* ccl.cacheinvalid send_counts (insert rule 1) */
#define OP_S_SC_FENCE  20   /* ccl.fence (insert rule 1) */
#define OP_S_SEND_WRITE 21  /* tensor_write send[q*MR + k] */
#define OP_S_SEND_INV  22   /* ccl.cacheinvalid send (insert rule 1) */
#define OP_S_SEND_FENCE 23  /* ccl.fence (insert rule 1) */
#define OP_S_RETURN    24

#define IS_FENCE(op) ((op) == OP_PRO_FENCE || (op) == OP_PUT_FENCE || (op) == OP_S_PRO_FENCE \
                      || (op) == OP_S_SC_FENCE || (op) == OP_S_SEND_FENCE)
#define FIRST_PEER (me_rank == 0 -> 1 : 0)

/* Line of a cache: 0 = absent, else PRESENT | (DIRTY) | version. One element a line. */
#define PRESENT 64
#define DIRTY 128
#define VERSION 63

/* A block's access happens after the earlier access (thread th, epoch ep) when it is its
 * own or the block's clock has reached ep in th's component (ccl-sim's happens_before). */
#define ORDERED(th, ep) ((th) == me || (ep) <= clk[th])

active [NSLOT] proctype Block()
{
#define slot (_pid - P)
#define me (P + slot)
#define me_rank (slot / B)
#define blk (slot % B)
    byte clk[T];            /* this thread's vector clock */
    byte line[NLOC];        /* this slot's private, non-coherent cache */
    byte pc;                /* the op the block rests at */
    byte kernel;
    byte i;                 /* the peer of a barrier or reset loop */
    byte q;                 /* the peer of a snapshot or push loop, or @stage's %q */
    byte k;                 /* @stage's %k */
    byte lo; byte hi;       /* the lane's slice of the pushed elements */
    byte v; byte n; byte j; byte tag; bit rest;

/* A GM read of element l through the cache (read, remote_load, the source of put): a hit,
 * or the block's own newest write still in flight (own accesses are coherent), or memory;
 * a miss keeps the line. Then the checks: (b) the last write is ordered before it, (a) the
 * read returns that write. */
#define GM_READ(l, ver) \
    if \
    :: line[l] != 0 -> ver = line[l] & VERSION \
    :: else -> \
        if \
        :: inflight[slot * NLOC + (l)] != 0 -> ver = inflight[slot * NLOC + (l)] & VERSION \
        :: else -> ver = mem[l] \
        fi; \
        line[l] = PRESENT | ver \
    fi; \
    if \
    :: w_version[l] != 0 -> \
        assert(ORDERED(w_thread[l], w_epoch[l]));  /* race (b): unordered accesses */ \
        assert(ver == w_version[l])                /* race (a): a stale read */ \
    :: else \
    fi; \
    r_epoch[(l) * T + me] = clk[me]

/* A write issued to element l: checked against the last write and every read since it,
 * then it becomes the last write. */
#define CHECK_WRITE(l) \
    if \
    :: w_version[l] != 0 -> assert(ORDERED(w_thread[l], w_epoch[l])) /* race (b) */ \
    :: else \
    fi; \
    for (j : 0 .. T - 1) { \
        if \
        :: r_epoch[(l) * T + j] != 0 -> \
            assert(ORDERED(j, r_epoch[(l) * T + j]));                  /* race (b) */ \
            r_epoch[(l) * T + j] = 0 \
        :: else \
        fi \
    }; \
    w_version[l]++; w_thread[l] = me; w_epoch[l] = clk[me]

/* tensor_write: a dirty line nobody else sees. */
#define TENSOR_WRITE(l) \
    CHECK_WRITE(l); \
    if :: !(line[l] & DIRTY) -> dirty_lines[l]++ :: else fi; \
    line[l] = DIRTY | PRESENT | w_version[l]

/* A free unit tag of this slot (at most 3 units in flight: an assertion, not a silent bound). */
#define NEW_UNIT \
    if \
    :: !(units[slot] & 1) -> tag = 1 \
    :: else -> if :: !(units[slot] & 2) -> tag = 2 :: else -> assert(!(units[slot] & 4)); tag = 3 fi \
    fi

/* A write of element l, version ver, joins unit tag. */
#define ENQUEUE(l, ver) \
    assert(inflight[slot * NLOC + (l)] == 0);  /* model bound: one write a slot and element */ \
    inflight[slot * NLOC + (l)] = (tag << 6) | (ver); \
    in_flight_to[l]++; \
    units[slot] = units[slot] | (1 << (tag - 1))

/* cacheinvalid over elements lo .. hi-1: the dirty lines go to the in-flight queue as one
 * unit, the clean ones are dropped. */
#define CACHEINVALID(from, to) \
    NEW_UNIT; \
    for (j : from .. (to) - 1) { \
        if \
        :: line[j] & DIRTY -> ENQUEUE(j, line[j] & VERSION); dirty_lines[j]-- \
        :: else \
        fi; \
        line[j] = 0 \
    }

/* notify atomic_add: into memory, atomically; the cell's clock joins this thread's; tick. */
#define NOTIFY(c, add) \
    sig[c] = sig[c] + (add); \
    for (j : 0 .. T - 1) { sig_clock[(c) * T + j] = MAX(sig_clock[(c) * T + j], clk[j]) }; \
    clk[me]++

/* A wait that holds acquires the cell's clock. */
#define ACQUIRE(c) \
    for (j : 0 .. T - 1) { clk[j] = MAX(clk[j], sig_clock[(c) * T + j]) }

/* Whether a read of element l commutes with every other thread's steps (ccl-sim's
 * read_is_local): it hits the cache, or nothing is in flight toward l and no other cache
 * holds it dirty. */
#define QUIET(l) (line[l] != 0 || (in_flight_to[l] == 0 && dirty_lines[l] == 0))

#define STARTS_BARRIER(op) pc = op; i = FIRST_PEER
#define NEXT_PEER i++; if :: i == me_rank -> i++ :: else fi

/* Where the snapshot starts: the first peer this block owns, if it is lane 0. */
#define START_SNAPSHOT \
    q = FIRST_OWNED(blk); \
    if \
    :: LANE(blk) == 0 -> pc = OP_SNAP_LOAD \
    :: else -> AFTER_SNAPSHOT \
    fi
#define START_PUSH q = FIRST_OWNED(blk); pc = OP_PUSH_READ
#define START_RESET STARTS_BARRIER(OP_RESET)
#if LATE
#define AFTER_A_INV START_PUSH
#define AFTER_SNAPSHOT START_RESET
#define AFTER_B_INV START_SNAPSHOT
#else
#define AFTER_A_INV START_SNAPSHOT
#define AFTER_SNAPSHOT START_PUSH
#define AFTER_B_INV START_RESET
#endif
#define NEXT_PUSH \
    q = q + OWNED_STEP; \
    if \
    :: q < P -> pc = OP_PUSH_READ \
    :: else -> STARTS_BARRIER(OP_B_NOTIFY) \
    fi

/* Runs the op at pc (which is enabled) and moves pc to the next op. */
#define STEP \
    if \
    :: pc == OP_IDLE -> \
        /* launched: the block acquires the host's clock (fork) */ \
        kernel = go[slot]; \
        for (j : 0 .. T - 1) { clk[j] = MAX(clk[j], fork_clock[me_rank * T + j]) }; \
        if :: clk[me] == 0 -> clk[me] = 1 :: else fi; \
        if :: kernel == STAGE -> pc = OP_S_PRO_INV :: else -> pc = OP_PRO_INV fi \
    /* ---- @__ccl_all_to_all_v ---- */ \
    :: pc == OP_PRO_INV -> CACHEINVALID(0, NLOC); pc = OP_PRO_FENCE \
    :: pc == OP_PRO_FENCE -> STARTS_BARRIER(OP_A_NOTIFY) \
    :: pc == OP_A_NOTIFY -> \
        NOTIFY(CELL(i, me_rank, blk), 1); \
        NEXT_PEER; if :: i >= P -> STARTS_BARRIER(OP_A_WAIT) :: else fi \
    :: pc == OP_A_WAIT -> \
        ACQUIRE(CELL(me_rank, i, blk)); \
        NEXT_PEER; if :: i >= P -> pc = OP_A_INV :: else fi \
    :: pc == OP_A_INV -> CACHEINVALID(0, NLOC); AFTER_A_INV \
    :: pc == OP_SNAP_LOAD -> GM_READ(SC(q, me_rank), v); pc = OP_SNAP_WRITE \
    :: pc == OP_SNAP_WRITE -> \
        TENSOR_WRITE(RC(me_rank, q)); \
        q = q + OWNED_STEP; \
        if :: q < P -> pc = OP_SNAP_LOAD :: else -> AFTER_SNAPSHOT fi \
    :: pc == OP_PUSH_READ -> \
        GM_READ(SC(me_rank, q), v); \
        /* rows = clamp(count, 0, MR); the lane's slice flat_lane_slice(rows, LANES, lane) */ \
        n = SC_VALUE(me_rank, q, v); \
        n = (n > MR -> MR : n); \
        v = (n + LANES - 1) / LANES; \
        lo = (LANE(blk) * v < n -> LANE(blk) * v : n); \
        hi = (lo + v < n -> lo + v : n); \
        if :: hi > lo -> pc = OP_PUT :: else -> NEXT_PUSH fi \
    :: pc == OP_PUT -> \
        NEW_UNIT; \
        for (n : lo .. hi - 1) { \
            GM_READ(SEND(me_rank, q * MR + n), v); \
            CHECK_WRITE(RECV(q, me_rank * MR + n)); \
            ENQUEUE(RECV(q, me_rank * MR + n), w_version[RECV(q, me_rank * MR + n)]) \
        }; \
        pc = OP_PUT_FENCE \
    :: pc == OP_PUT_FENCE -> NEXT_PUSH \
    :: pc == OP_B_NOTIFY -> \
        NOTIFY(CELL(i, me_rank, blk), 1); \
        NEXT_PEER; if :: i >= P -> STARTS_BARRIER(OP_B_WAIT) :: else fi \
    :: pc == OP_B_WAIT -> \
        ACQUIRE(CELL(me_rank, i, blk)); \
        NEXT_PEER; if :: i >= P -> pc = OP_B_INV :: else fi \
    :: pc == OP_B_INV -> CACHEINVALID(0, NLOC); AFTER_B_INV \
    :: pc == OP_RESET -> \
        NOTIFY(CELL(me_rank, i, blk), -2); \
        NEXT_PEER; if :: i >= P -> pc = OP_RETURN :: else fi \
    /* ---- @stage ---- */ \
    :: pc == OP_S_PRO_INV -> CACHEINVALID(0, NLOC); pc = OP_S_PRO_FENCE \
    :: pc == OP_S_PRO_FENCE -> q = 0; pc = OP_S_SC_WRITE \
    :: pc == OP_S_SC_WRITE -> TENSOR_WRITE(SC(me_rank, q)); pc = OP_S_SC_INV \
    :: pc == OP_S_SC_INV -> CACHEINVALID(SC_LO, SC_HI); pc = OP_S_SC_FENCE \
    :: pc == OP_S_SC_FENCE -> k = 0; pc = OP_S_SEND_WRITE \
    :: pc == OP_S_SEND_WRITE -> TENSOR_WRITE(SEND(me_rank, q * MR + k)); pc = OP_S_SEND_INV \
    :: pc == OP_S_SEND_INV -> CACHEINVALID(SEND_LO, SEND_HI); pc = OP_S_SEND_FENCE \
    :: pc == OP_S_SEND_FENCE -> \
        k++; \
        if \
        :: k < MR -> pc = OP_S_SEND_WRITE \
        :: else -> q++; if :: q < P -> pc = OP_S_SC_WRITE :: else -> pc = OP_S_RETURN fi \
        fi \
    /* ---- return: the block is done; the host joins it once all have returned ---- */ \
    :: pc == OP_RETURN || pc == OP_S_RETURN -> \
        for (j : 0 .. T - 1) { join_clock[me_rank * T + j] = MAX(join_clock[me_rank * T + j], clk[j]) }; \
        clk[me]++; \
        go[slot] = 0; \
        finished[me_rank]++; \
        pc = OP_IDLE \
    fi

/* Whether the block rests before the op at pc: an op others observe (a notify, a wait
 * that does not hold, a fence with writes in flight, a read of a location that is not
 * quiet), or the end of the kernel. A `ge` wait on a cell only ever added to runs as soon
 * as it holds, as in ccl-sim. */
#define RESTS \
    rest = (pc == OP_IDLE || pc == OP_A_NOTIFY || pc == OP_B_NOTIFY || pc == OP_RESET \
        || (pc == OP_A_WAIT && sig[CELL(me_rank, i, blk)] < 1) \
        || (pc == OP_B_WAIT && sig[CELL(me_rank, i, blk)] < 2) \
        || (IS_FENCE(pc) && units[slot] != 0) \
        || (pc == OP_SNAP_LOAD && !QUIET(SC(q, me_rank))) \
        || (pc == OP_PUSH_READ && !QUIET(SC(me_rank, q)))); \
    if \
    :: pc == OP_PUT -> for (n : lo .. hi - 1) { rest = rest || !QUIET(SEND(me_rank, q * MR + n)) } \
    :: else \
    fi

/* Whether the op the block rests at can run. */
#define ENABLED \
    ((pc == OP_IDLE && go[slot] != 0) \
     || (pc == OP_A_WAIT && sig[CELL(me_rank, i, blk)] >= 1) \
     || (pc == OP_B_WAIT && sig[CELL(me_rank, i, blk)] >= 2) \
     || (IS_FENCE(pc) && units[slot] == 0) \
     || (pc != OP_IDLE && pc != OP_A_WAIT && pc != OP_B_WAIT && !IS_FENCE(pc)))

idle:
end:
    do
    :: d_step { (pc == OP_IDLE && go[slot] != 0); STEP; RESTS;
            do :: rest -> break :: else -> STEP; RESTS od };
       /* running: a block blocked here is a deadlock (not an end state) */
       do
       :: d_step { (pc != OP_IDLE && ENABLED); STEP; RESTS;
               do :: rest -> break :: else -> STEP; RESTS od }
       :: pc == OP_IDLE -> break
       od
    od
#undef slot
#undef me
#undef me_rank
#undef blk
}

/* In-flight units land in memory at any later step, in any order, each atomically. */
#define LAND(s, t) \
    d_step { \
        units[s] & (1 << ((t) - 1)) -> \
        for (l : 0 .. NLOC - 1) { \
            if \
            :: (inflight[(s) * NLOC + l] >> 6) == (t) -> \
                mem[l] = inflight[(s) * NLOC + l] & VERSION; \
                inflight[(s) * NLOC + l] = 0; \
                in_flight_to[l]-- \
            :: else \
            fi \
        }; \
        units[s] = units[s] & ~(1 << ((t) - 1)) \
    }

active [NSLOT] proctype Lander()
{
#define slot (_pid - P - NSLOT)
    byte l;
end:
    do
    :: LAND(slot, 1)
    :: LAND(slot, 2)
    :: LAND(slot, 3)
    od
#undef slot
}
