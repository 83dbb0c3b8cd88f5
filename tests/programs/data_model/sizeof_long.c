/* `long` is 32 bits under ILP32, 64 under LP64.
   expect: ilp32=true lp64=false */
int main(void) {
  if (sizeof(long) != 4 || sizeof(unsigned long) != 4) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
