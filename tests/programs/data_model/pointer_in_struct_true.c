/* A pointer stored in a struct field (4 bytes under ILP32, next to an
   int) and followed: the int beside it is not overwritten.
   expect: ilp32=true lp64=true */
struct node {
  struct node *next;
  int v;
};
int main(void) {
  struct node a, b;
  b.v = 5;
  a.v = 1;
  a.next = &b;
  if (a.next->v != 5 || a.v != 1) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
