/* Swapping the bytes of any value twice gives the value back, and a
   swap moves the low byte to the top: provable only if `bswap` is
   modelled exactly, not as an unknown result.
   expect: cegar=true */
typedef unsigned int __u32;
typedef unsigned long long __u64;
extern __u32 __VERIFIER_nondet_uint(void);
extern __u64 __VERIFIER_nondet_ulonglong(void);

static inline __u32 __arch_swab32(__u32 val) {
  __asm__ ("bswapl %0": "=r" (val): "0" (val));
  return val;
}

static inline __u64 __arch_swab64(__u64 val) {
  __asm__ ("bswapq %0": "=r" (val): "0" (val));
  return val;
}

int main(void) {
  __u32 x = __VERIFIER_nondet_uint();
  __u64 y = __VERIFIER_nondet_ulonglong();
  if (__arch_swab32(__arch_swab32(x)) != x || __arch_swab64(__arch_swab64(y)) != y) {
  ERROR:
    return 1;
  }
  if ((__arch_swab32(x) >> 24) != (x & 0xffU)) {
  ERROR2:
    goto ERROR;
  }
  return 0;
}
