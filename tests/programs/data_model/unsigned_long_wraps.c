/* unsigned long wraps at 2^32 under ILP32 and not under LP64.
   expect: ilp32=true lp64=false */
int main(void) {
  unsigned long x = 0xffffffffUL;
  x = x + 1;
  if (x != 0) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
