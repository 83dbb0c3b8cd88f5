/* An object's address is never in the error-pointer page, whose start is
   -4095 as an unsigned long of either width.
   expect: ilp32=true lp64=true */
extern void *malloc(unsigned long size);
int main(void) {
  void *p = malloc(4);
  void *e = (void *)-12L;
  if (p != 0 && (unsigned long)p >= (unsigned long)-4095L) {
    goto ERROR;
  }
  if ((unsigned long)e < (unsigned long)-4095L) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
