export const UPI_ID_PATTERN = /^[a-zA-Z0-9.\-_]{2,64}@[a-zA-Z]{2,32}$/;
export const UPI_ID_MESSAGE =
  'upiId must look like name@bank: 2-64 letters, digits, ".", "-" or "_", then "@" and 2-32 letters';
