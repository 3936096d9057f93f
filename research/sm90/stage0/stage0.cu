// Stage-0 microbenchmarks for the sm_90a sparse-MLA kernels, one file each (m01_*.cuh ..
// m12_*.cuh) over a shared harness (harness.cuh), in one standalone program on the product's
// PTX wrappers (ffi/ours/sm90/device_helpers.cuh, namespace ptx). Build and run:
// research/sm90_stage0.sh. The studies they answered: research/README.md.
//   M1  e4m3 -> f16 conversion (cvt.rn.f16x2.e4m3x2) throughput, alone, ex2.approx alone,
//       and the two interleaved (shared pipe or not).
//   M2  wgmma m64nNk16 f32.f16.f16, N = 8 / 16 / 32, A from registers (RS) or shared (SS),
//       1 or 2 warpgroups per CTA; plus an mma.sync m16n8k16 baseline.
//   M3  random-row gather (528 / 656-byte rows, 1.1 GB pool): cp.async.bulk + mbarrier vs
//       16-byte ld.global vs 16-byte cp.async, 4..64 rows in flight per CTA.
//   M4  split combine: DSMEM combine inside a thread-block cluster vs global scratch + a
//       second kernel, end to end in CUDA graphs.
//   M5  wgmma with B N-major (imm-trans-b = 1), no swizzle: which descriptor field (LBO /
//       SBO) takes the K- and which the N-direction core stride, for two core orders (the
//       family-L value MMA reads the fp16 tile [candidate][dim] as B[K = cand][N = dim]).
// M6-M8: the next heads-major design's questions (research/notes/anchors.md 5.0 (iii) calls them
//   M5-M7; renumbered here because M5 was taken):
//   M6  16 KB exchanges between the CTAs of a cluster pair (st.async + complete_tx, or
//       st.shared::cluster + a remote release arrive), alone and beside m64n128k16 SS
//       wgmma streams on both CTAs: cycles per exchange and the MMA rate lost.
//   M7  the 64-row block gather by bulk copies (one per row) from a 1.1 GB pool, random
//       rows: the product's 2-warp gather_rows against 4 warps of 16 rows (whole or half
//       rows), 1 or 2 blocks in flight, and each one's issue cost per block.
//   M8  score MMAs m64n64k16 (and n32) SS, both operands K-major, 16 k-steps per block, by
//       one or both consumer warpgroups: the fraction of the dense fp16 rate.
// M9-M11: stage 1 of the Horner design (research/notes/horner_stage1.md):
//   M9  the block loop of three warpgroups with one-way hand-offs: Horner scores (one
//       accumulator, three waits) with the previous block's value MMAs interleaved, P'
//       through shared memory to the second warpgroup; against the same with one wait.
//   M10 M9 with the producer converting 32 KB of codes into the next 64 KB tile per block.
//   M11 the producer's register gather of random rows with L2 prefetch, alone.
//   M12 M9's fallback: two symmetric scoring warpgroups on alternate blocks, each with O
//       for half the dims and the running maximum passed between them.
// Every micro-kernel's result is checked (a wrong PTX reports FAIL, not a speed); every
// mbarrier wait is bounded (a timeout sets an error flag); SIGALRM ends a hung run.
// Output: one "RESULT ..." line per measurement; "FAIL" on any check that fails.
// Usage: stage0 [m1] ... [m12]   (default: all)
#include "harness.cuh"
#include "m01_convert.cuh"
#include "m02_wgmma_rate.cuh"
#include "m03_gather.cuh"
#include "m04_combine.cuh"
#include "m05_nmajor_descriptor.cuh"
#include "m06_cluster_exchange.cuh"
#include "m07_block_gather.cuh"
#include "m08_score_mma.cuh"
#include "m09_m10_block_loop.cuh"
#include "m11_register_gather.cuh"
#include "m12_symmetric_scorers.cuh"

static void on_alarm(int) {
  const char msg[] = "FAIL: stage0 watchdog: no progress for 300 s, aborting\n";
  (void)!write(1, msg, sizeof(msg) - 1);
  _exit(3);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGALRM, on_alarm);
  bool want[13] = {false, true, true, true, true, true, true, true, true, true, true, true, true};
  if (argc > 1) {
    for (int i = 1; i < 13; ++i) want[i] = false;
    for (int i = 1; i < argc; ++i) {
      const int n = argv[i][0] == 'm' ? std::atoi(argv[i] + 1) : 0;
      if (n >= 1 && n <= 12)
        want[n] = true;
      else
        std::printf("stage0: ignoring unknown argument %s (m1 .. m12)\n", argv[i]);
    }
  }
  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  g_sms = p.multiProcessorCount;
  int clock_khz = 0, mem_khz = 0;
  (void)cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
  (void)cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
  std::printf("device: %s, cc %d.%d, %d SMs, max clock %.0f MHz, L2 %.0f MB, smem/block optin %zu KB\n",
              p.name, p.major, p.minor, g_sms, clock_khz / 1e3, p.l2CacheSize / 1e6,
              p.sharedMemPerBlockOptin / 1024);
  if (p.major != 9) {
    std::printf("FAIL: needs compute capability 9.0 (sm_90a build)\n");
    return 2;
  }
  if (want[1]) { alarm(300); run_m1(); }
  if (want[2]) { alarm(300); run_m2(); }
  if (want[3]) { alarm(300); run_m3(); }
  if (want[4]) { alarm(300); run_m4(); }
  if (want[5]) { alarm(60); run_m5(); }
  if (want[6]) { alarm(300); run_m6(); }
  if (want[7]) { alarm(300); run_m7(); }
  if (want[8]) { alarm(300); run_m8(); }
  if (want[9]) { alarm(120); run_m9(false); }
  if (want[10]) { alarm(120); run_m9(true); }
  if (want[11]) { alarm(200); run_m11(); }
  if (want[12]) { alarm(120); run_m12(); }
  alarm(0);
  std::printf("stage0: %d failure(s)\n", g_fail);
  return g_fail ? 1 : 0;
}
