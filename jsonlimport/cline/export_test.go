package cline

// LayoutSDK is layoutSDK, for the fuzz target's check that a session
// read without damage is written back as read.
var LayoutSDK = layoutSDK
