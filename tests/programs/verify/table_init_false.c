/* An environment model after LDV's: module initialisation fills a table in
 * a loop with a constant bound, then callbacks run in any order. The error
 * needs every iteration of the loop (table[59] is written by the last one):
 * the search under explicit values unrolls it with the counter known, where
 * predicate abstraction would need a refinement per iteration. */
extern int __VERIFIER_nondet_int(void);

int table[60];
int registered;

static int init(void)
{
  int i;
  for (i = 0; i < 60; i++)
    table[i] = i * 2;
  registered = 1;
  return 0;
}

static void callback(int k)
{
  if (registered && k >= 0 && k < 60 && table[k] == 118) {
  ERROR:
    ;
  }
}

int main(void)
{
  if (init() != 0)
    return 0;
  while (__VERIFIER_nondet_int())
    callback(__VERIFIER_nondet_int());
  return 0;
}
