/* A driver revision instrumented for one rule: the model's error label is
 * reached only when the module count underflows, which main never does. */
extern int __VERIFIER_nondet_int(void);
static int count = 0;
static void get(void) { count++; }
static void put(void)
{
  if (count <= 0) {
  LDV_ERROR:
    return;
  }
  count--;
}
int main(void)
{
  get();
  if (__VERIFIER_nondet_int())
    put();
  return 0;
}
