/* Paths that explicit values do not tell apart: a condition over memory
 * decided false by its second operand, a switch on an input inside a loop,
 * and a ?: on the line of an if (each its own branching waypoint).
 * prp: unreach-call.prp  expect: false */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

struct request { int dir; int len; };
int state;

static void step(struct request *q)
{
  if (q->dir == 0 && q->len != 0)
    state = 9;
  else
    state = state * 2;
}

static int fail(void)
{
  reach_error();
  return 0;
}

int main(void)
{
  struct request r;
  struct request *q = &r;
  int i;
  r.dir = 0;
  r.len = 0;
  for (i = 0; i < 3; i++) {
    switch (__VERIFIER_nondet_int()) {
    case 0: state = state + 1; break;
    case 1: step(q); break;
    default: break;
    }
  }
  if (q != 0) ((state != 4) ? 0 : fail());
  return 0;
}
