"""factscope.extract"""
