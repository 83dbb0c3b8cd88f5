/* Rule 134_1a (USB interface data reset). */
struct usb_interface { int minor; };
void usb_set_intfdata(struct usb_interface *i, void *data);
int priv;

void bad_Left(struct usb_interface *i) { usb_set_intfdata(i, &priv); }
void safe_Left(struct usb_interface *i) { usb_set_intfdata(i, &priv); usb_set_intfdata(i, (void *)0); }
int main(void) { return 0; }
