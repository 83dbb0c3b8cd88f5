/* The integer value of a heap pointer depends on the memory layout: the low
 * 32 bits of a non-null pointer can be non-zero, so ERROR is reachable. An
 * encoding with fixed addresses must not prove it unreachable.
 * expect: symexec=false|unknown cegar=false|unknown */
extern void *malloc(unsigned long size);
int main(void)
{
  void *p = malloc(4);
  unsigned int lo = (unsigned int)p;
  if (p != 0 && lo != 0) {
  ERROR:
    return 1;
  }
  return 0;
}
