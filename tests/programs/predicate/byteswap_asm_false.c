/* The kernel's x86 byte swaps (`__arch_swab32`, `__arch_swab64`, behind
   `be32_to_cpu` and friends) as LDV's CIL output has them: the swapped
   constants reach ERROR.
   expect: cegar=false */
typedef unsigned int __u32;
typedef unsigned long long __u64;

static inline __u32 __arch_swab32(__u32 val) {
  __asm__ ("bswapl %0": "=r" (val): "0" (val));
  return val;
}

static inline __u64 __arch_swab64(__u64 val) {
  __asm__ ("bswapq %0": "=r" (val): "0" (val));
  return val;
}

int main(void) {
  __u32 x = __arch_swab32(0x11223380U);
  __u64 y = __arch_swab64(0x0102030405060788ULL);
  if (x == 0x80332211U && y == 0x8807060504030201ULL) {
  ERROR:
    return 1;
  }
  return 0;
}
