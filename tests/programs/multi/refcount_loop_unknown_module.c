/* Ten references taken on a module that may be NULL, eleven dropped: a
 * violation only when the module is not NULL, ten loop iterations deep.
 * Each __module_get and module_put splits on `m != 0`; the explicit values
 * keep the first outcome, so the search follows one of them per path.
 * expect: 08_1a=false 43_1a=true */
struct module { int refs; };
extern void __module_get(struct module *m);
extern void module_put(struct module *m);
extern struct module *find_module(const char *name);

int main(void)
{
  struct module *m = find_module("snd");
  int i;
  for (i = 0; i < 10; i++)
    __module_get(m);
  for (i = 0; i < 11; i++)
    module_put(m);
  return 0;
}
