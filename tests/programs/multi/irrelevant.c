/* No driver API is used: every rule is irrelevant and holds.
 * expect: 32_1=true 43_1a=true 08_1a=true 68_1=true */
extern int __VERIFIER_nondet_int(void);
extern void ldv_check_final_state(void);

static int table[8];

int main(void)
{
  int i, sum = 0;
  for (i = 0; i < 8; i++) {
    table[i] = __VERIFIER_nondet_int();
    sum += table[i];
  }
  ldv_check_final_state();
  return sum > 0;
}
