/*
 * The lowered all_to_all_v under the execution model of SEMANTICS.md, for Spin: the peer
 * of ccl-sim in bench/spin_bench.py. README.md beside this file maps it to the spec.
 *
 * It is the program
 *     ccl-gen --all-to-all-v P,B | ccl-opt - -p 'builtin.module(ccl-pipeline{lower-collectives=true})'
 * (-DLATE=1: ccl-lower-all-to-all-v{late-snapshot=true} in place of the default lowering):
 * on each rank, the host of @main runs CALLS rounds of
 *     func.call @stage                          1 block: restages send_counts and send
 *     func.call @__ccl_all_to_all_v_p<P>_b<B>   B blocks: Barrier A, snapshot, push,
 *                                               Barrier B, reset
 * with the markers ccl-insert-comm-fence places, under ccl-sim's memory model: private
 * non-coherent caches, in-flight write units, atomic signals, fork/join launches, vector
 * clocks. A data race is an assertion violation, a deadlock the watchdog's.
 *
 *     spin -a -DP=2 -DB=2 all_to_all_v.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
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

/* Lanes per peer (ccl-admit-launch-width's lane mapping): K = B / P when B >= P, else 0. */
#if B >= P
#define FIRST_OWNED(b) ((b) / (B / P))  /* block b owns peer b / K at lane b % K */
#define LANE(b) ((b) % (B / P))
#define OWNED_STEP P
#define LANES (B / P)
#else
#define FIRST_OWNED(b) (b)              /* block b owns peers b, b + B, ... < P, at lane 0 */
#define LANE(b) 0
#define OWNED_STEP B
#define LANES 1
#endif

/* ---------------------------------------------------------------------------------------
 * Threads: the host of rank r is thread r; block slot s (0 .. P*B - 1) is thread P + s, of
 * rank s / B, block id s % B. A slot's cache, in-flight queue and clock survive from one
 * launch to the next; @stage runs on the first slot of its rank, as block 0 does.
 * ------------------------------------------------------------------------------------- */
#define T (P * (1 + B))
#define NSLOT (P * B)
#define ME(s) (P + (s))
#define RANK(s) ((s) / B)
#define BLK(s) ((s) % B)

byte clock[T * T];          /* clock[t*T + u]: thread t's vector clock, component u */

/* ---------------------------------------------------------------------------------------
 * Memory: every element the program touches, on every rank (a window is the same buffer on
 * every rank). What an element holds is the identity of the write that produced it: its
 * version, the count of writes issued to the element (0 = the zero fill). Values follow
 * from identities: the only value that steers control flow is a send count, and version v
 * of rank r's send_counts[q] holds what @stage of round v-1 wrote, (v-1 + r + q) mod (MR+1).
 * ------------------------------------------------------------------------------------- */
#define SC(r, q)    ((r) * P + (q))                               /* send_counts[q] of rank r */
#define SEND(r, i)  (P * P + (r) * P * MR + (i))                  /* send[i] of rank r */
#define RECV(r, i)  (P * P + P * P * MR + (r) * P * MR + (i))     /* recv[i] of rank r */
#define RC(r, q)    (P * P + 2 * P * P * MR + (r) * P + (q))      /* recv_counts[q] of rank r */
#define NLOC (2 * P * P + 2 * P * P * MR)
#define SC_VALUE(r, q, ver) ((ver) == 0 -> 0 : (((ver) - 1 + (r) + (q)) % (MR + 1)))

byte mem[NLOC];             /* the version each element holds in memory */

/* Caches: line[s*NLOC + l] is slot s's line of element l: 0 = absent, else PRESENT, DIRTY
 * when written and not yet written back, and the version it holds. One element a line. */
#define PRESENT 64
#define DIRTY 128
#define VERSION 63
byte line[NSLOT * NLOC];

/* The shadow of the race detector, per element: the last write issued (its version,
 * thread and that thread's epoch) and each thread's latest read since it (epoch, 0 =
 * none). Accesses are checked when they are issued, as ccl-sim does. */
byte w_version[NLOC];
byte w_thread[NLOC];
byte w_epoch[NLOC];
byte r_epoch[NLOC * T];

/* In flight: inflight[s*NLOC + l] is slot s's write of element l on its way to memory,
 * (unit tag << 6) | version, 0 = none. A unit (the writes of one cacheinvalid, or of one
 * put) has a tag 1..3 in its slot; bit tag-1 of units[s] is set while it is in flight.
 * in_flight_to and dirty_lines count, per element, the writes in flight toward it and the
 * caches holding it dirty: ccl-sim's test of a quiet location reads them. */
byte inflight[NSLOT * NLOC];
byte units[NSLOT];
byte in_flight_to[NLOC];
byte dirty_lines[NLOC];

/* Signals: signal[p, blk] of rank r is cell (r*P + p)*B + blk, in memory, atomic, never
 * cached, with the join of the clocks its notifies released. */
#define CELL(r, p, b) (((r) * P + (p)) * B + (b))
byte sig[P * P * B];
byte sig_clock[P * P * B * T];

/* Launches. A host has no step others observe: as in ccl-sim it runs inside the step of
 * the block that returns last (the join, then its next launch, whose blocks run at once to
 * their first observable op). So it is data here: its launch count (odd: @stage, even: the
 * collective), the width of the launch and how many of its blocks have returned. */
#define STAGE 1
#define A2AV 2
byte go[NSLOT];             /* the kernel a slot was launched with, 0 = idle */
byte launched[P];
byte width[P];
byte finished[P];

/* The block programs: pc[s] is the op slot s rests at; i, q, k its loop variables, lo and
 * hi its lane's slice of the push. */
#define OP_IDLE        0
/* @__ccl_all_to_all_v_p<P>_b<B>, in the protocol's order (LATE: the snapshot after B_INV) */
#define OP_PRO_INV     1    /* ccl.cacheinvalid   prologue (insert, Phase B) */
#define OP_PRO_FENCE   2    /* ccl.fence          prologue (insert, Phase B) */
#define OP_A_NOTIFY    3    /* barrier-a.notify: notify atomic_add +1 signal[me, blk] of peer i */
#define OP_A_WAIT      4    /* barrier-a.wait: wait ge 1 on this rank's signal[i, blk] */
#define OP_A_INV       5    /* ccl.cacheinvalid after the wait loop (insert rule 5) */
#define OP_SNAP_LOAD   6    /* snapshot: remote_load peer q's send_counts[me] */
#define OP_SNAP_WRITE  7    /* snapshot: tensor_write recv_counts[q] (plain memref: no marker) */
#define OP_PUSH_READ   8    /* push: read send_counts[q], clamp, the lane's slice */
#define OP_PUT         9    /* push: put send[q*MR + lo .. hi) into peer q's recv[me*MR + lo ..] */
#define OP_PUT_FENCE   10   /* ccl.fence after the put (insert rule 2) */
#define OP_B_NOTIFY    11   /* barrier-b.notify: notify atomic_add +1 */
#define OP_B_WAIT      12   /* barrier-b.wait: wait ge 2 */
#define OP_B_INV       13   /* ccl.cacheinvalid after the wait loop (insert rule 5) */
#define OP_RESET       14   /* reset: notify atomic_add -2 on this rank's signal[i, blk] */
#define OP_RETURN      15
/* @stage */
#define OP_S_PRO_INV   16   /* ccl.cacheinvalid   prologue (insert, Phase B) */
#define OP_S_PRO_FENCE 17   /* ccl.fence          prologue (insert, Phase B) */
#define OP_S_SC_WRITE  18   /* tensor_write send_counts[q] */
#define OP_S_SC_INV    19   /* ccl.cacheinvalid send_counts (insert rule 1) */
#define OP_S_SC_FENCE  20   /* ccl.fence (insert rule 1) */
#define OP_S_SEND_WRITE 21  /* tensor_write send[q*MR + k] */
#define OP_S_SEND_INV  22   /* ccl.cacheinvalid send (insert rule 1) */
#define OP_S_SEND_FENCE 23  /* ccl.fence (insert rule 1) */
#define OP_S_RETURN    24
byte pc[NSLOT];
byte peer_i[NSLOT];
byte peer_q[NSLOT];
byte elem_k[NSLOT];
byte lo[NSLOT];
byte hi[NSLOT];

/* What an assertion found (named so that Spin's report says it), not part of the state:
 * race (a) of the spec, a stale read; race (b), an access of one block unordered with an
 * earlier access of another to the same element, one of them a write; a deadlock. */
hidden byte race_stale_read;
hidden byte race_read_unordered_with_write;
hidden byte race_write_unordered_with_read;
hidden byte race_write_unordered_with_write;
hidden byte deadlock;
/* A bound of the encoding exceeded (not a race: the model must grow; the protocol never does). */
hidden byte model_bound;

/* Scratch of the d_steps, not part of the state. */
hidden byte tmp_j;
hidden byte tmp_n;
hidden byte tmp_v;
hidden byte tmp_t;
hidden byte tmp_l;
hidden byte tmp_tag;
hidden byte tmp_rest;
hidden byte tmp_progress;

#define MAX(a, b) ((a) > (b) -> (a) : (b))
#define IS_FENCE(op) ((op) == OP_PRO_FENCE || (op) == OP_PUT_FENCE || (op) == OP_S_PRO_FENCE \
                      || (op) == OP_S_SC_FENCE || (op) == OP_S_SEND_FENCE)
#define FIRST_PEER(s) (RANK(s) == 0 -> 1 : 0)

/* An access by slot s comes after the earlier access (thread th, epoch ep) when it is its
 * own or s's clock has reached ep in th's component (ccl-sim's happens_before). */
#define ORDERED(s, th, ep) ((th) == ME(s) || (ep) <= clock[ME(s) * T + (th)])

/* A GM read by slot s of element e (read, remote_load, the source of put): a hit; else the
 * slot's own write of e still in flight (own accesses are coherent); else memory, and the
 * line is kept. Then race (b), the last write not ordered before it, and race (a), a read
 * that does not return that write. */
#define GM_READ(s, e) \
    if \
    :: line[(s) * NLOC + (e)] != 0 -> tmp_v = line[(s) * NLOC + (e)] & VERSION \
    :: else -> \
        if \
        :: inflight[(s) * NLOC + (e)] != 0 -> tmp_v = inflight[(s) * NLOC + (e)] & VERSION \
        :: else -> tmp_v = mem[e] \
        fi; \
        line[(s) * NLOC + (e)] = PRESENT | tmp_v \
    fi; \
    if \
    :: w_version[e] != 0 -> \
        race_read_unordered_with_write = !ORDERED(s, w_thread[e], w_epoch[e]); \
        assert(!race_read_unordered_with_write);        /* race (b) */ \
        race_stale_read = (tmp_v != w_version[e]); \
        assert(!race_stale_read)                        /* race (a) */ \
    :: else \
    fi; \
    r_epoch[(e) * T + ME(s)] = clock[ME(s) * T + ME(s)]

/* A write by slot s to element e, checked against the last write and every read since. */
#define CHECK_WRITE(s, e) \
    if \
    :: w_version[e] != 0 -> \
        race_write_unordered_with_write = !ORDERED(s, w_thread[e], w_epoch[e]); \
        assert(!race_write_unordered_with_write)        /* race (b) */ \
    :: else \
    fi; \
    for (tmp_j : 0 .. T - 1) { \
        if \
        :: r_epoch[(e) * T + tmp_j] != 0 -> \
            race_write_unordered_with_read = !ORDERED(s, tmp_j, r_epoch[(e) * T + tmp_j]); \
            assert(!race_write_unordered_with_read);    /* race (b) */ \
            r_epoch[(e) * T + tmp_j] = 0 \
        :: else \
        fi \
    }; \
    w_version[e]++; w_thread[e] = ME(s); w_epoch[e] = clock[ME(s) * T + ME(s)]

/* tensor_write: a dirty line nobody else sees. */
#define TENSOR_WRITE(s, e) \
    CHECK_WRITE(s, e); \
    if :: !(line[(s) * NLOC + (e)] & DIRTY) -> dirty_lines[e]++ :: else fi; \
    line[(s) * NLOC + (e)] = DIRTY | PRESENT | w_version[e]

/* A free unit tag of slot s (more than 3 units in flight is an assertion, not a silent
 * bound; the protocol has at most one). */
#define NEW_UNIT(s) \
    if \
    :: !(units[s] & 1) -> tmp_tag = 1 \
    :: else -> if :: !(units[s] & 2) -> tmp_tag = 2 :: else -> model_bound = units[s] >> 2; assert(!model_bound); tmp_tag = 3 fi \
    fi

/* Slot s's write of element e, version ver, joins unit tag. */
#define ENQUEUE(s, e, ver) \
    model_bound = inflight[(s) * NLOC + (e)]; assert(!model_bound);  /* one write a slot and element */ \
    inflight[(s) * NLOC + (e)] = (tmp_tag << 6) | (ver); \
    in_flight_to[e]++; \
    units[s] = units[s] | (1 << (tmp_tag - 1))

/* cacheinvalid of elements from .. to-1 (a whole buffer, on every rank, or all of GM):
 * the dirty lines go to the in-flight queue as one unit, the clean ones are dropped. */
#define CACHEINVALID(s, from, to) \
    NEW_UNIT(s); \
    for (tmp_l : from .. (to) - 1) { \
        if \
        :: line[(s) * NLOC + tmp_l] & DIRTY -> ENQUEUE(s, tmp_l, line[(s) * NLOC + tmp_l] & VERSION); dirty_lines[tmp_l]-- \
        :: else \
        fi; \
        line[(s) * NLOC + tmp_l] = 0 \
    }

/* notify atomic_add: the cell changes in memory, atomically; its clock joins the
 * notifier's, which then ticks. */
#define NOTIFY(s, c, add) \
    sig[c] = sig[c] + (add); \
    for (tmp_j : 0 .. T - 1) { sig_clock[(c) * T + tmp_j] = MAX(sig_clock[(c) * T + tmp_j], clock[ME(s) * T + tmp_j]) }; \
    clock[ME(s) * T + ME(s)]++

/* A wait that holds acquires the cell's clock. */
#define ACQUIRE(s, c) \
    for (tmp_j : 0 .. T - 1) { clock[ME(s) * T + tmp_j] = MAX(clock[ME(s) * T + tmp_j], sig_clock[(c) * T + tmp_j]) }

/* A launch from the host of rank r: the blocks acquire its clock, then it ticks. */
#define FORK(r, kind, w) \
    width[r] = w; \
    for (tmp_n : 0 .. (w) - 1) { \
        go[(r) * B + tmp_n] = kind; \
        for (tmp_j : 0 .. T - 1) { \
            clock[ME((r) * B + tmp_n) * T + tmp_j] = MAX(clock[ME((r) * B + tmp_n) * T + tmp_j], clock[(r) * T + tmp_j]) \
        } \
    }; \
    clock[(r) * T + (r)]++

/* Whether slot s's read of element e commutes with every other thread's steps (ccl-sim's
 * read_is_local): it hits the cache, or nothing is in flight toward e and no other cache
 * holds it dirty. */
#define QUIET(s, e) (line[(s) * NLOC + (e)] != 0 || (in_flight_to[e] == 0 && dirty_lines[e] == 0))

#define STARTS_BARRIER(s, op) pc[s] = op; peer_i[s] = FIRST_PEER(s)
#define NEXT_PEER(s) peer_i[s]++; if :: peer_i[s] == RANK(s) -> peer_i[s]++ :: else fi
#define START_SNAPSHOT(s) \
    peer_q[s] = FIRST_OWNED(BLK(s)); \
    if \
    :: LANE(BLK(s)) == 0 -> pc[s] = OP_SNAP_LOAD \
    :: else -> peer_q[s] = 0; AFTER_SNAPSHOT(s) \
    fi
#define START_PUSH(s) peer_q[s] = FIRST_OWNED(BLK(s)); pc[s] = OP_PUSH_READ
#if LATE
#define AFTER_A_INV(s) START_PUSH(s)
#define AFTER_PUSH(s) STARTS_BARRIER(s, OP_B_NOTIFY)
#define AFTER_B_INV(s) START_SNAPSHOT(s)
#define AFTER_SNAPSHOT(s) STARTS_BARRIER(s, OP_RESET)
#else
#define AFTER_A_INV(s) START_SNAPSHOT(s)
#define AFTER_SNAPSHOT(s) START_PUSH(s)
#define AFTER_PUSH(s) STARTS_BARRIER(s, OP_B_NOTIFY)
#define AFTER_B_INV(s) STARTS_BARRIER(s, OP_RESET)
#endif
#define NEXT_PUSH(s) \
    lo[s] = 0; hi[s] = 0; \
    peer_q[s] = peer_q[s] + OWNED_STEP; \
    if \
    :: peer_q[s] < P -> pc[s] = OP_PUSH_READ \
    :: else -> peer_q[s] = 0; AFTER_PUSH(s) \
    fi

/* Slot s runs the op at pc[s] (which can run) and moves to the next. */
#define STEP(s) \
    if \
    :: pc[s] == OP_IDLE -> if :: go[s] == STAGE -> pc[s] = OP_S_PRO_INV :: else -> pc[s] = OP_PRO_INV fi \
    /* ---- @__ccl_all_to_all_v ---- */ \
    :: pc[s] == OP_PRO_INV -> CACHEINVALID(s, 0, NLOC); pc[s] = OP_PRO_FENCE \
    :: pc[s] == OP_PRO_FENCE -> STARTS_BARRIER(s, OP_A_NOTIFY) \
    :: pc[s] == OP_A_NOTIFY -> \
        NOTIFY(s, CELL(peer_i[s], RANK(s), BLK(s)), 1); \
        NEXT_PEER(s); if :: peer_i[s] >= P -> STARTS_BARRIER(s, OP_A_WAIT) :: else fi \
    :: pc[s] == OP_A_WAIT -> \
        ACQUIRE(s, CELL(RANK(s), peer_i[s], BLK(s))); \
        NEXT_PEER(s); if :: peer_i[s] >= P -> peer_i[s] = 0; pc[s] = OP_A_INV :: else fi \
    :: pc[s] == OP_A_INV -> CACHEINVALID(s, 0, NLOC); AFTER_A_INV(s) \
    :: pc[s] == OP_SNAP_LOAD -> GM_READ(s, SC(peer_q[s], RANK(s))); pc[s] = OP_SNAP_WRITE \
    :: pc[s] == OP_SNAP_WRITE -> \
        TENSOR_WRITE(s, RC(RANK(s), peer_q[s])); \
        peer_q[s] = peer_q[s] + OWNED_STEP; \
        if :: peer_q[s] < P -> pc[s] = OP_SNAP_LOAD :: else -> peer_q[s] = 0; AFTER_SNAPSHOT(s) fi \
    :: pc[s] == OP_PUSH_READ -> \
        GM_READ(s, SC(RANK(s), peer_q[s])); \
        /* rows = clamp(count, 0, MR); the lane's flat_lane_slice(rows, LANES, lane) */ \
        tmp_n = SC_VALUE(RANK(s), peer_q[s], tmp_v); \
        tmp_n = (tmp_n > MR -> MR : tmp_n); \
        tmp_v = (tmp_n + LANES - 1) / LANES; \
        lo[s] = (LANE(BLK(s)) * tmp_v < tmp_n -> LANE(BLK(s)) * tmp_v : tmp_n); \
        hi[s] = (lo[s] + tmp_v < tmp_n -> lo[s] + tmp_v : tmp_n); \
        if :: hi[s] > lo[s] -> pc[s] = OP_PUT :: else -> NEXT_PUSH(s) fi \
    :: pc[s] == OP_PUT -> \
        NEW_UNIT(s); \
        for (tmp_n : lo[s] .. hi[s] - 1) { \
            GM_READ(s, SEND(RANK(s), peer_q[s] * MR + tmp_n)); \
            CHECK_WRITE(s, RECV(peer_q[s], RANK(s) * MR + tmp_n)); \
            /* the slot's own line of the element, if any, is older: it goes */ \
            if \
            :: line[(s) * NLOC + RECV(peer_q[s], RANK(s) * MR + tmp_n)] & DIRTY -> \
                dirty_lines[RECV(peer_q[s], RANK(s) * MR + tmp_n)]-- \
            :: else \
            fi; \
            line[(s) * NLOC + RECV(peer_q[s], RANK(s) * MR + tmp_n)] = 0; \
            ENQUEUE(s, RECV(peer_q[s], RANK(s) * MR + tmp_n), w_version[RECV(peer_q[s], RANK(s) * MR + tmp_n)]) \
        }; \
        pc[s] = OP_PUT_FENCE \
    :: pc[s] == OP_PUT_FENCE -> NEXT_PUSH(s) \
    :: pc[s] == OP_B_NOTIFY -> \
        NOTIFY(s, CELL(peer_i[s], RANK(s), BLK(s)), 1); \
        NEXT_PEER(s); if :: peer_i[s] >= P -> STARTS_BARRIER(s, OP_B_WAIT) :: else fi \
    :: pc[s] == OP_B_WAIT -> \
        ACQUIRE(s, CELL(RANK(s), peer_i[s], BLK(s))); \
        NEXT_PEER(s); if :: peer_i[s] >= P -> peer_i[s] = 0; pc[s] = OP_B_INV :: else fi \
    :: pc[s] == OP_B_INV -> CACHEINVALID(s, 0, NLOC); AFTER_B_INV(s) \
    :: pc[s] == OP_RESET -> \
        NOTIFY(s, CELL(RANK(s), peer_i[s], BLK(s)), -2); \
        NEXT_PEER(s); if :: peer_i[s] >= P -> peer_i[s] = 0; pc[s] = OP_RETURN :: else fi \
    /* ---- @stage ---- */ \
    :: pc[s] == OP_S_PRO_INV -> CACHEINVALID(s, 0, NLOC); pc[s] = OP_S_PRO_FENCE \
    :: pc[s] == OP_S_PRO_FENCE -> peer_q[s] = 0; pc[s] = OP_S_SC_WRITE \
    :: pc[s] == OP_S_SC_WRITE -> TENSOR_WRITE(s, SC(RANK(s), peer_q[s])); pc[s] = OP_S_SC_INV \
    :: pc[s] == OP_S_SC_INV -> CACHEINVALID(s, SC(0, 0), SC(P, 0)); pc[s] = OP_S_SC_FENCE \
    :: pc[s] == OP_S_SC_FENCE -> elem_k[s] = 0; pc[s] = OP_S_SEND_WRITE \
    :: pc[s] == OP_S_SEND_WRITE -> TENSOR_WRITE(s, SEND(RANK(s), peer_q[s] * MR + elem_k[s])); pc[s] = OP_S_SEND_INV \
    :: pc[s] == OP_S_SEND_INV -> CACHEINVALID(s, SEND(0, 0), SEND(P, 0)); pc[s] = OP_S_SEND_FENCE \
    :: pc[s] == OP_S_SEND_FENCE -> \
        elem_k[s]++; \
        if \
        :: elem_k[s] < MR -> pc[s] = OP_S_SEND_WRITE \
        :: else -> \
            elem_k[s] = 0; peer_q[s]++; \
            if :: peer_q[s] < P -> pc[s] = OP_S_SC_WRITE :: else -> peer_q[s] = 0; pc[s] = OP_S_RETURN fi \
        fi \
    /* ---- return: the host joins the blocks once all have returned, and runs on ---- */ \
    :: pc[s] == OP_RETURN || pc[s] == OP_S_RETURN -> \
        go[s] = 0; pc[s] = OP_IDLE; \
        finished[RANK(s)]++; \
        if \
        :: finished[RANK(s)] == width[RANK(s)] -> \
            for (tmp_n : 0 .. width[RANK(s)] - 1) { \
                for (tmp_j : 0 .. T - 1) { \
                    clock[RANK(s) * T + tmp_j] = MAX(clock[RANK(s) * T + tmp_j], clock[ME(RANK(s) * B + tmp_n) * T + tmp_j]) \
                }; \
                clock[ME(RANK(s) * B + tmp_n) * T + ME(RANK(s) * B + tmp_n)]++ \
            }; \
            finished[RANK(s)] = 0; \
            launched[RANK(s)]++; \
            if \
            :: launched[RANK(s)] > 2 * CALLS -> width[RANK(s)] = 0 \
            :: launched[RANK(s)] <= 2 * CALLS && (launched[RANK(s)] & 1) -> FORK(RANK(s), STAGE, 1) \
            :: else -> FORK(RANK(s), A2AV, B) \
            fi \
        :: else \
        fi \
    fi

/* Whether slot s rests before the op at pc[s]: idle, or an op others observe (a notify, a
 * wait that does not hold, a fence with writes in flight, a read of a location that is not
 * quiet). A `ge` wait on a cell only ever added to runs as soon as it holds, as in
 * ccl-sim. */
#define RESTS(s) \
    tmp_rest = ((pc[s] == OP_IDLE && go[s] == 0) \
        || pc[s] == OP_A_NOTIFY || pc[s] == OP_B_NOTIFY || pc[s] == OP_RESET \
        || (pc[s] == OP_A_WAIT && sig[CELL(RANK(s), peer_i[s], BLK(s))] < 1) \
        || (pc[s] == OP_B_WAIT && sig[CELL(RANK(s), peer_i[s], BLK(s))] < 2) \
        || (IS_FENCE(pc[s]) && units[s] != 0) \
        || (pc[s] == OP_SNAP_LOAD && !QUIET(s, SC(peer_q[s], RANK(s)))) \
        || (pc[s] == OP_PUSH_READ && !QUIET(s, SC(RANK(s), peer_q[s])))); \
    if \
    :: pc[s] == OP_PUT -> \
        for (tmp_n : lo[s] .. hi[s] - 1) { tmp_rest = tmp_rest || !QUIET(s, SEND(RANK(s), peer_q[s] * MR + tmp_n)) } \
    :: else \
    fi

/* Every thread runs on to its next observable op (ccl-sim's settle after each action),
 * until none can: a launch by a returning block starts blocks that run too. */
#define SETTLE_ALL \
    tmp_progress = 1; \
    do \
    :: tmp_progress -> \
        tmp_progress = 0; \
        for (tmp_t : 0 .. NSLOT - 1) { \
            RESTS(tmp_t); \
            do \
            :: tmp_rest -> break \
            :: else -> STEP(tmp_t); tmp_progress = 1; RESTS(tmp_t) \
            od \
        } \
    :: else -> break \
    od

/* What slot s can do in a settled state: the observable op it rests at. (Waits and
 * fences that hold, and idle slots with a launch, were run by the settle.) */
#define CAN_STEP(s) \
    (pc[s] == OP_A_NOTIFY || pc[s] == OP_B_NOTIFY || pc[s] == OP_RESET \
     || pc[s] == OP_SNAP_LOAD || pc[s] == OP_PUSH_READ || pc[s] == OP_PUT)

/* Boot: every host runs @main up to its first launch, and the blocks it starts settle. */
active proctype Boot()
{
    d_step {
        for (tmp_t : 0 .. T - 1) { clock[tmp_t * T + tmp_t] = 1 };
        for (tmp_t : 0 .. P - 1) { launched[tmp_t] = 1; FORK(tmp_t, STAGE, 1) };
        SETTLE_ALL
    }
}

/* One process a block slot: a step is the observable op it rests at, then the settle. */
active [NSLOT] proctype Block()
{
end:
    do
    :: d_step { CAN_STEP(_pid - 1) -> STEP(_pid - 1); SETTLE_ALL }
    od
}

/* In-flight units land in memory at any later step, in any order, each atomically; the
 * settle then runs what the landing let go (a fence, a read of a location now quiet). */
#define LAND(s, u) \
    d_step { \
        units[s] & (1 << ((u) - 1)) -> \
        for (tmp_l : 0 .. NLOC - 1) { \
            if \
            :: (inflight[(s) * NLOC + tmp_l] >> 6) == (u) -> \
                mem[tmp_l] = inflight[(s) * NLOC + tmp_l] & VERSION; \
                inflight[(s) * NLOC + tmp_l] = 0; \
                in_flight_to[tmp_l]-- \
            :: else \
            fi \
        }; \
        units[s] = units[s] & ~(1 << ((u) - 1)); \
        SETTLE_ALL \
    }

active [NSLOT] proctype Lander()
{
end:
    do
    :: LAND(_pid - 1 - NSLOT, 1)
    :: LAND(_pid - 1 - NSLOT, 2)
    :: LAND(_pid - 1 - NSLOT, 3)
    od
}

/* A deadlock: nothing can move and some host has not returned from @main. */
#define FINISHED (launched[0] > 2 * CALLS FINISHED_REST)
#if P == 2
#define FINISHED_REST && launched[1] > 2 * CALLS
#elif P == 3
#define FINISHED_REST && launched[1] > 2 * CALLS && launched[2] > 2 * CALLS
#elif P == 4
#define FINISHED_REST && launched[1] > 2 * CALLS && launched[2] > 2 * CALLS && launched[3] > 2 * CALLS
#else
#error "the watchdog lists the hosts of up to 4 ranks"
#endif
active proctype Watchdog()
{
end:
    atomic { timeout -> deadlock = !FINISHED; assert(!deadlock) }
}
