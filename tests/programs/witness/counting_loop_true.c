/* A counting loop: the reach_error call after it needs what the loop
 * keeps of its counter (the value search unrolls it to its fixed point).
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
void reach_error() { abort(); }

int main(void)
{
  int i;
  for (i = 0; i < 10; i++) {
  }
  if (i != 10)
    reach_error();
  return 0;
}
