/* As find_next_bit_guarded.c without the guard: an offset beyond the size
 * violates the bitops automaton whichever way its variables bind. */
extern int find_next_bit(const unsigned long *addr, int size, int offset);
extern unsigned long __VERIFIER_nondet_ulong(void);
unsigned long bits[4];

void scan(unsigned long size, unsigned long offset)
{
    int r;
    r = find_next_bit(bits, size, offset);
}

int main(void)
{
    scan(__VERIFIER_nondet_ulong(), __VERIFIER_nondet_ulong());
    return 0;
}
