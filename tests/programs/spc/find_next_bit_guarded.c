/* The prototype takes ints while the caller passes unsigned longs guarded
 * by size >= offset: CPAchecker's bitops automaton binds $2 and $3 to the
 * arguments as written, so its "offset out of range" check holds. Bound to
 * the converted ints it would fail (size 2^32 truncates to 0). */
extern int find_next_bit(const unsigned long *addr, int size, int offset);
extern unsigned long __VERIFIER_nondet_ulong(void);
unsigned long bits[4];

void scan(unsigned long size, unsigned long offset)
{
    int r;
    if (size < offset)
        return;
    r = find_next_bit(bits, size, offset);
}

int main(void)
{
    scan(__VERIFIER_nondet_ulong(), __VERIFIER_nondet_ulong());
    return 0;
}
