/* The error label is only reachable through a callback registered in a
 * struct of function pointers: the function-pointer call must be resolved. */
struct ops { int (*probe)(int); void (*remove)(void); };
extern int __VERIFIER_nondet_int(void);
static void fail(void) { ERROR: return; }
static int my_probe(int x) { if (x > 3) fail(); return 0; }
static void my_remove(void) { }
static struct ops driver_ops = { .probe = my_probe, .remove = my_remove };
int main(void)
{
  struct ops *o = &driver_ops;
  o->probe(__VERIFIER_nondet_int());
  o->remove();
  return 0;
}
