/* Ten references taken on a non-NULL module in one loop and ten dropped in
 * another: the count is back to its initial value. Joining the loop
 * heads' states loses the counter; the value search unrolls both loops
 * to their fixed point and proves the rule without a refinement per
 * iteration.
 * expect: 08_1a=true 43_1a=true */
struct module { int refs; };
extern void __module_get(struct module *m);
extern void module_put(struct module *m);
extern struct module *find_module(const char *name);

int main(void)
{
  struct module *m = find_module("snd");
  int i;
  if (m == 0)
    return 0;
  for (i = 0; i < 10; i++)
    __module_get(m);
  for (i = 0; i < 10; i++)
    module_put(m);
  return 0;
}
