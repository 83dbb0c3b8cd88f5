/* A pointer converted to `unsigned int` and back is the same pointer under
   ILP32; under LP64 the conversion truncates it.
   expect: ilp32=true lp64=false|unknown */
int x;
int main(void) {
  int *p = &x;
  unsigned int u = (unsigned int)p;
  int *q = (int *)u;
  *q = 3;
  if (x != 3) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
