/* Rule 129_1a (bit searches). */
unsigned long find_next_bit(const unsigned long *addr, unsigned long size, unsigned long offset);
unsigned long bits[2];
unsigned long r;

void bad_Offset(void) { r = find_next_bit(bits, 64, 65); }
void safe_Offset(void) { r = find_next_bit(bits, 64, 64); }
int main(void) { return 0; }
