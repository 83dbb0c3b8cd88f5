/* Every address fits in 32 bits under ILP32; under LP64 whether an
   object's address does depends on the layout.
   expect: ilp32=true lp64=unknown */
extern void *malloc(unsigned long size);
int g;
int main(void) {
  void *p = malloc(8);
  unsigned long long a = (unsigned long long)(unsigned long)p;
  unsigned long long b = (unsigned long long)(unsigned long)&g;
  if (a > 0xffffffffULL || b > 0xffffffffULL) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
