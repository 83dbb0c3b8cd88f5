/* Field offsets computed from a null pointer (the offsetof idiom of
   container_of, also through temporaries as CIL writes it) do not depend
   on where objects lie: the error path is exact.
   expect: symexec=false cegar=false */
struct s {
  int a;
  int b;
};
int main(void) {
  struct s *z = (struct s *)0;
  int *f = &z->b;
  unsigned int off = (unsigned int)f;
  if (off == 4 && (unsigned int)&((struct s *)0)->b == 4) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
