/* Pointers take 4 bytes and `long long` is 4-aligned under ILP32:
   12 and 12 bytes; LP64 gives 24 and 16.
   expect: ilp32=true lp64=false */
struct s {
  char c;
  void *p;
  int x;
};
struct t {
  int a;
  long long b;
};
int main(void) {
  if (sizeof(struct s) != 12 || sizeof(void *) != 4 || sizeof(struct t) != 12) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
