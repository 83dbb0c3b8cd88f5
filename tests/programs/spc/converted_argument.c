/* mpv's rule language binds a pattern variable to the value the callee
 * receives: take(300) passes 44 to an unsigned char parameter. */
extern void take(unsigned char x);

int main(void)
{
    take(300);
    return 0;
}
