/* The same as pointer_in_struct_true.c with the error reachable.
   expect: ilp32=false lp64=false */
struct node {
  struct node *next;
  int v;
};
int main(void) {
  struct node a, b;
  b.v = 5;
  a.v = 1;
  a.next = &b;
  if (a.next->v == 5 && a.v == 1) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
