/* The kernel's x86 atomic operations as LDV's CIL output has them: inline
   assembly whose effect on the counter decides whether ERROR is reached.
   expect: cegar=false */
typedef struct { int counter; } atomic_t;

static inline void atomic_inc(atomic_t *v) {
  __asm__ volatile(".pushsection .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.popsection\n671:\n\tlock; incl %0"
                   : "+m" (v->counter));
}

static inline int atomic_sub_and_test(int i, atomic_t *v) {
  unsigned char c;
  __asm__ volatile(".pushsection .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.popsection\n671:\n\tlock; subl %2,%0; sete %1"
                   : "+m" (v->counter), "=qm" (c) : "ir" (i) : "memory");
  return (int)c;
}

static inline int atomic_add_return(int i, atomic_t *v) {
  int __ret = i;
  __asm__ volatile("lock; xaddl %0, %1\n" : "+r" (__ret), "+m" (v->counter) : : "memory", "cc");
  return i + __ret;
}

atomic_t refs;

int main(void) {
  atomic_inc(&refs);
  atomic_inc(&refs);
  if (atomic_add_return(3, &refs) != 5)
    return 0;
  __asm__ volatile("" : : : "memory");
  if (atomic_sub_and_test(5, &refs)) {
  ERROR:;
  }
  return 0;
}
