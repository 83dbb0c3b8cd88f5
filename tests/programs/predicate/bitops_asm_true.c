/* The kernel's x86 bit operations as LDV's CIL output has them: set_bit,
   clear_bit and test_and_set_bit on a bit string of two words, with bit
   offsets past the first word.
   expect: cegar=true */
unsigned long flags[2];

static inline void set_bit(long nr, unsigned long volatile *addr) {
  __asm__ volatile(".section .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.previous\n671:\n\tlock; bts %1,%0"
                   : "+m" (*((long volatile *)addr)) : "Ir" (nr) : "memory");
}

static inline void clear_bit(int nr, unsigned long volatile *addr) {
  __asm__ volatile(".section .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.previous\n671:\n\tlock; btr %1,%0"
                   : "+m" (*((long volatile *)addr)) : "Ir" (nr));
}

static inline int test_and_set_bit(int nr, unsigned long volatile *addr) {
  int oldbit;
  __asm__ volatile(".section .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.previous\n671:\n\tlock; bts %2,%1\n\tsbb %0,%0"
                   : "=r" (oldbit), "+m" (*((long volatile *)addr)) : "Ir" (nr) : "memory");
  return oldbit;
}

int main(void) {
  set_bit(70, flags);
  set_bit(3, flags);
  clear_bit(3, flags);
  if (flags[1] != 64UL || flags[0] != 0UL)
    return 0;
  if (test_and_set_bit(71, flags) == -1 && flags[1] == 64UL) {
  ERROR:;
  }
  return 0;
}
